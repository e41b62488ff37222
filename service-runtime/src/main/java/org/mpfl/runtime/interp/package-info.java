/**
 * The interpreter of generated MPFL services: how one rank runs its process's typed IR on a service
 * host. {@link org.mpfl.runtime.interp.InterpreterService} is the program class a compiled service's
 * {@code services.xml} names; when the host deploys the archive it loads the process's IR and the plan
 * once ({@link org.mpfl.runtime.interp.InterpretedProgram}, shared by all ranks) and every started rank
 * gets a {@link org.mpfl.runtime.interp.RankInterpreter}. The interpreter binds params and variables,
 * then the {@code Executor} runs the activity lists: control flow itself, every other activity through
 * the step that owns it (point-to-point, collectives, communicators, {@code compute}, {@code invoke},
 * reports, checkpoints). A fault becomes a {@link org.mpfl.runtime.interp.RankFault} carrying the
 * activity and its {@code file:line:col}; a watchdog reports ranks stuck in a blocking call; a
 * checkpoint saves the rank's position and variables, and a resumed rank re-enters at that position.
 *
 * <p>This is the top layer of the runtime: it uses the host, the communicators, the collectives,
 * point-to-point messaging and the transports, and nothing in the runtime uses it. The activity
 * semantics it shares with the static check come from mpfl-ir ({@code org.mpfl.ir.semantics}); the
 * compiler itself is never on its path.
 */
package org.mpfl.runtime.interp;
