package org.mpfl.runtime.interp.kernel;

/**
 * A kernel call or a kernel worker's start that failed. {@link Kind#WORKFLOW}: the kernel's own doing
 * (an exception, a wrong output, an exit, a module that does not import) — the workflow's fault,
 * never retried. {@link Kind#LOST}: the worker was killed from outside (SIGKILL, the OOM killer) — an
 * infrastructure fault like a lost rank, which the rank reports as such with its FAILED state
 * ({@code org.mpfl.protocol.FaultKind}); its message starts with {@link #LOST_MARK} for the reader, but the
 * kind alone decides (a kernel's own exception may say the same words).
 */
public final class KernelFailure extends Exception {
    private static final long serialVersionUID = 1L;

    /** In the message of every {@link Kind#LOST} failure, for the reader (the engine goes by {@link #kind()}, not by it). */
    public static final String LOST_MARK = "kernel worker lost:";

    /** Whose fault it is. */
    public enum Kind { WORKFLOW, LOST }

    private final Kind kind;

    KernelFailure(Kind kind, String message) {
        super(kind == Kind.LOST && !message.contains(LOST_MARK) ? LOST_MARK + " " + message : message);
        this.kind = kind;
    }

    static KernelFailure workflow(String message) {
        return new KernelFailure(Kind.WORKFLOW, message);
    }

    public Kind kind() {
        return kind;
    }
}
