/**
 * Runs of a deployment plan: {@link org.mpfl.engine.run.RunService}, a facade over three rooms a run
 * passes through top-down — monitoring ({@code RunMonitor}: rank events, status polls, deadlocks,
 * reads), the domain lifecycle ({@code RunLifecycle}: start, end, restart, resume) and placement
 * ({@code RunPlacer}: placement, deployment, {@code run} fan-out through Camel, quarantine) — over
 * shared parts that call no room ({@code RunDomains}: live domains and the one abort path;
 * {@code RunJournal}: the stored record, events and listeners). {@link org.mpfl.engine.run.Run} is a
 * run's live state, {@link org.mpfl.engine.run.RunView} what the REST API shows of it. See
 * docs/architecture.md, "A run's path through the engine".
 */
package org.mpfl.engine.run;
