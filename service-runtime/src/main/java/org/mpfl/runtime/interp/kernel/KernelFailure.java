package org.mpfl.runtime.interp.kernel;

/**
 * A kernel call or a kernel worker's start that failed. {@link Kind#WORKFLOW}: the kernel's own doing
 * (an exception, a wrong output, an exit, a module that does not import) — the workflow's fault,
 * never retried. {@link Kind#LOST}: the worker was killed from outside (SIGKILL, the OOM killer) — an
 * infrastructure fault like a lost rank; its message contains {@link #LOST_MARK}, by which the engine
 * tells it apart.
 */
public final class KernelFailure extends Exception {
    private static final long serialVersionUID = 1L;

    /** In the message of every {@link Kind#LOST} failure (the engine's restart policy looks for it). */
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
