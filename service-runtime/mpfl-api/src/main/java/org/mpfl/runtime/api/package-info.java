/**
 * The public MPIWS Java API: what a programmer uses to write an MPIWS service by hand, and what
 * the workflow interpreter is itself a client of.
 *
 * <p>A {@link org.mpfl.runtime.api.RankProgram} is started by the MPIWS {@code run} operation and
 * receives a {@link org.mpfl.runtime.api.RankContext}; its {@link org.mpfl.runtime.api.Communicator}
 * {@code world()} sends and receives messages directly to and from the other ranks of the
 * communication domain. Everything outside this package is internal and may change.
 */
package org.mpfl.runtime.api;
