/**
 * What the modules' tests share, one copy each: the wait for an observable condition
 * ({@link org.mpfl.testing.Await}, also "until a run ends"), the full-tier marker
 * ({@link org.mpfl.testing.StartsProcesses}), the lab CA ({@link org.mpfl.testing.LabPki}), a child's
 * {@code /proc} files ({@link org.mpfl.testing.ProcFiles}), an {@code mpflc} command line run in
 * this JVM ({@link org.mpfl.testing.MpflcCall}), a JSON-over-HTTP client ({@link org.mpfl.testing.Http}) and a
 * reverse proxy that answers its own 404s while it reloads ({@link org.mpfl.testing.ReloadingProxy}).
 * The network lab (engine and hosts in network namespaces) is in {@code org.mpfl.testing.lab}, the child
 * JVMs' command line and class-data sharing archive in {@code org.mpfl.testing.childjvm}, the
 * attackers' tools (a raw {@code store}, the Tripwire gadget) in {@code org.mpfl.testing.attack}, the
 * architecture rules in {@code org.mpfl.architecture}, the fixtures' inline expectations in
 * {@code org.mpfl.fixtures}.
 *
 * <p>Where this module sits: it depends on mpfl-ir and mpiws-protocol only (main artifacts), so every
 * module above them (compiler, runtime, engine, bench, war, samples) uses it in test scope, and the
 * build needs no test-jar. The network lab starts the engine and the hosts as processes by their
 * entry points' names, on the caller's class path, so it needs them at run time only. Helpers built on
 * the runtime's or the engine's classes stay with the tests of the one module that uses them (the
 * runtime's in-process cluster and messaging scenarios, the engine's {@code HostCalls}): shared from
 * here, they would make a cycle with that module's own tests. mpfl-ir's and mpiws-protocol's
 * architecture tests run here, on those modules' jars.
 */
package org.mpfl.testing;
