package org.mpfl.runtime.api;

/**
 * The code one rank runs. The MPIWS {@code run} operation creates a rank instance and calls
 * {@link #run} on its own thread; returning ends the rank successfully, throwing fails it and
 * aborts the domain.
 *
 * <p>Hand-written services implement this; generated MPFL services use the workflow interpreter.
 */
@FunctionalInterface
public interface RankProgram {
    void run(RankContext context) throws Exception;
}
