package org.mpfl.runtime.interp;

import org.mpfl.ir.diag.SourceLocation;
import org.mpfl.ir.eval.RuntimeFault;
import org.mpfl.runtime.api.DeliveryException;
import org.mpfl.runtime.api.DomainAbortedException;
import org.mpfl.runtime.api.MpiwsException;
import org.mpfl.runtime.api.ReceiveTimeoutException;
import org.mpfl.runtime.interp.kernel.KernelFailure;

/**
 * Turns whatever an activity threw into the rank's {@link RankFault} with the activity's name and
 * location, in one place so that every fault reads alike. An abort of the domain is passed through
 * unchanged: it is the consequence of another rank's fault (or a cancel), not a fault of this rank,
 * and the engine tells the two apart by the exception type. The faults that are not the workflow's (a
 * peer unreachable, a kernel worker lost) are made {@linkplain RankFault#infrastructure infrastructure
 * faults} here; every other is the workflow's.
 */
final class Faults {
    private Faults() {
    }

    /** The fault to throw for {@code thrown} raised while executing {@code activity} at {@code at}. */
    static RuntimeException at(String activity, SourceLocation at, Throwable thrown) {
        if (thrown instanceof RankFault f) {
            return f;
        }
        if (thrown instanceof DomainAbortedException aborted) {
            return aborted;
        }
        if (thrown instanceof RuntimeFault f) {
            return new RankFault(activity, f.location() != null ? f.location() : at, f.getMessage(), f);
        }
        if (thrown instanceof ReceiveTimeoutException t) {
            return new RankFault(activity, at, "timed out: " + t.getMessage(), t);
        }
        if (thrown instanceof DeliveryException d) {
            return RankFault.infrastructure(activity, at, "peer unreachable: " + d.getMessage(), d);
        }
        if (thrown instanceof MpiwsException m) {
            return new RankFault(activity, at, m.getMessage(), m);
        }
        if (thrown instanceof OutOfMemoryError e) {
            return new RankFault(activity, at, outOfMemory(e), e);
        }
        if (thrown instanceof IllegalArgumentException || thrown instanceof IllegalStateException
                || thrown instanceof ArithmeticException || thrown instanceof UnsupportedOperationException) {
            // the runtime's own checks (bad rank, unknown algorithm, ...) say what is wrong in their message
            return new RankFault(activity, at, thrown.getMessage() == null ? thrown.toString() : thrown.getMessage(), thrown);
        }
        String what = thrown.getClass().getSimpleName() + (thrown.getMessage() == null ? "" : ": " + thrown.getMessage());
        return new RankFault(activity, at, what, thrown);
    }

    /**
     * What a rank that ran out of Java heap reads: the JVM's reason and how much heap the host has, and where a larger
     * one is given. The failed allocation is the large one (an array the step needed), so the rank's thread can still
     * report it; the run fails as for any other fault of its document (not retried: the same data would not fit again).
     */
    static String outOfMemory(OutOfMemoryError e) {
        return "out of memory (" + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage())
                + "): this host's Java heap holds at most " + Runtime.getRuntime().maxMemory() / (1024 * 1024) + " MiB;"
                + " give the host a larger one (-Xmx: through MPFL_JAVA_OPTS for the host in mpflc's own JVM, run --local"
                + " and mpflc host, through MPFL_HOST_JAVA_OPTS for the host processes of mpflc up and run --local --hosts N)"
                + " or make the data smaller";
    }

    /**
     * The fault of a kernel call that failed: an infrastructure fault when its worker was lost (killed from outside),
     * the workflow's otherwise (whatever its message says: a kernel's exception may say "kernel worker lost:" too).
     */
    static RankFault kernel(String activity, SourceLocation at, KernelFailure f) {
        return f.kind() == KernelFailure.Kind.LOST ? RankFault.infrastructure(activity, at, f.getMessage(), f)
                : of(activity, at, f.getMessage());
    }

    /** A fault of the program itself at {@code at}. */
    static RankFault of(String activity, SourceLocation at, String message) {
        return new RankFault(activity, at, message);
    }
}
