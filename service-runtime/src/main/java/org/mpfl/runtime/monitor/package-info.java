/**
 * What flows between a rank instance and the engine besides messages: the content of the MPIWS
 * {@code run} request ({@link org.mpfl.protocol.RunRequest}) and the events a rank reports to
 * the engine's callback address ({@link org.mpfl.protocol.RankEvent}, JSON).
 */
package org.mpfl.runtime.monitor;
