/**
 * What flows between a rank instance and the engine besides messages: the content of the MPIWS
 * {@code run} request ({@link org.mpfl.protocol.RunRequest}) and the events a rank reports to
 * the engine's callback address ({@link org.mpfl.protocol.RankEvent}, JSON); what a rank program
 * may ask of its host ({@link org.mpfl.runtime.monitor.RankMonitor}, {@link org.mpfl.runtime.monitor.CheckpointSink}:
 * where its parts of checkpoints go and which one it resumes from).
 */
package org.mpfl.runtime.monitor;
