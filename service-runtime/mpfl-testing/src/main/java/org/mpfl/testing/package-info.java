/**
 * What the modules' tests share, one copy each: the wait for an observable condition
 * ({@link org.mpfl.testing.Await}, also "until a run ends"), the full-tier marker
 * ({@link org.mpfl.testing.StartsProcesses}), the lab CA ({@link org.mpfl.testing.LabPki}), a child's
 * {@code /proc} files ({@link org.mpfl.testing.ProcFiles}) and an {@code mpflc} command line run in
 * this JVM ({@link org.mpfl.testing.MpflcCall}). The architecture rules are in
 * {@code org.mpfl.architecture}, the fixtures' inline expectations in {@code org.mpfl.fixtures}.
 *
 * <p>Where this module sits: it depends on mpfl-ir and mpiws-protocol only (main artifacts), so every
 * module above them (compiler, runtime, engine, bench, war, samples) uses it in test scope. Helpers
 * that need the engine's or the runtime's classes (the in-process cluster, the network lab) cannot
 * live here without a cycle (the engine's own tests use them): they stay with the engine's tests.
 * mpfl-ir's and mpiws-protocol's architecture tests run here, on those modules' jars.
 */
package org.mpfl.testing;
