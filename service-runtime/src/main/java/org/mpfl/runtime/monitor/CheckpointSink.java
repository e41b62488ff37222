package org.mpfl.runtime.monitor;

import org.mpfl.protocol.RunRequest;

/**
 * Where a rank program puts its parts of checkpoints and finds the part it resumes from: the
 * service host's rank context implements it ({@link org.mpfl.protocol.CheckpointUpload} to the
 * engine); a program checks with {@code instanceof} and runs without checkpoints when it is absent.
 */
public interface CheckpointSink {

    /**
     * Whether parts go anywhere. When not (a host run without an engine), checkpoints still cut the
     * domain and are counted, but no part is written.
     */
    boolean stores();

    /** The checkpoint this rank resumes after, with its own part of it; {@code null}: from the start. */
    RunRequest.Resume resume();

    /**
     * Stores this rank's part of checkpoint {@code checkpoint} (bounded in time).
     *
     * @return {@code null} when stored, otherwise why not (the run goes on; that checkpoint stays incomplete)
     */
    String store(long checkpoint, byte[] part);

    /** Reports a part taken: its size, how long taking and storing it took, and why it was not stored ({@code null}: stored). */
    void checkpointed(long checkpoint, long bytes, long millis, String failure);
}
