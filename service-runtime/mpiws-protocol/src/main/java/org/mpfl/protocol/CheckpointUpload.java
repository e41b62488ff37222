package org.mpfl.protocol;

/**
 * How a rank hands its part of a checkpoint to the engine: {@code POST <callbackUrl>/checkpoints}
 * (the run request's {@link RunRequest#callbackUrl()}), the part as the body ({@code application/json},
 * opaque to the engine) and these headers. The engine checks the domain and the proof before it reads
 * the body, then checks the body's SHA-256 against the header; a checkpoint is complete only when the
 * part of every rank of the domain is stored.
 */
public final class CheckpointUpload {
    /** Appended to the callback address. */
    public static final String PATH = "checkpoints";
    public static final String DOMAIN_HEADER = "X-MPFL-Domain";
    public static final String RANK_HEADER = "X-MPFL-Rank";
    /** The checkpoint's sequence number in the run: 1 for the first checkpoint taken, then 2, … */
    public static final String CHECKPOINT_HEADER = "X-MPFL-Checkpoint";
    /** SHA-256 of the body, lower-case hex. */
    public static final String SHA256_HEADER = "X-MPFL-SHA256";
    /** base64url of {@link DomainToken#proveCheckpoint}. */
    public static final String PROOF_HEADER = "X-MPFL-Proof";

    private CheckpointUpload() {
    }
}
