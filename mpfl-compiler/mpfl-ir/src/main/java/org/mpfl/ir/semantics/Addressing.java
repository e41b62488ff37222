package org.mpfl.ir.semantics;

import org.mpfl.ir.IrExpr;
import org.mpfl.ir.eval.RuntimeFault;

/**
 * How point-to-point and rooted operations name ranks and tags (spec section 7): a peer is a
 * member's rank in the communicator or {@link #PROC_NULL} (−1: the operation does nothing); a
 * receive without {@code from} listens to {@link #ANY_SOURCE}, one without {@code tag} to
 * {@link #ANY_TAG}; tags are at least 0; a root must be a member. The constants have MPI's meaning
 * and the runtime API's values, so the check and the interpreter agree on them. A rank or tag out
 * of range is a {@link RuntimeFault} at its expression; a rank outside its communicator is the
 * subclass {@link OutsideCommunicator}, which the static check reports as an error.
 */
public final class Addressing {
    /** No peer: a send to it or a receive from it does nothing (MPI_PROC_NULL). */
    public static final int PROC_NULL = -1;
    /** A receive from any rank (MPI_ANY_SOURCE); never a valid {@code to}. */
    public static final int ANY_SOURCE = -2;
    /** A receive of any tag (MPI_ANY_TAG); also the tag a receive from {@link #PROC_NULL} reports. */
    public static final int ANY_TAG = -1;

    /**
     * A {@code to}, {@code from} or {@code root} that names no member of its communicator: the run
     * fails there whatever the data, so the communication check, which knows the value for the given
     * params, reports it as an error rather than as one of the faults it only warns about.
     */
    public static final class OutsideCommunicator extends RuntimeFault {
        private static final long serialVersionUID = 1L;

        OutsideCommunicator(IrExpr expr, String message) {
            super(expr.at(), message);
        }
    }

    private Addressing() {
    }

    /** The rank a send goes to ({@code to}): a member of the communicator or {@link #PROC_NULL}. */
    public static int destination(IrExpr to, Operands operands, String comm, int size) {
        return peer(to, operands, "destination", "to", comm, size);
    }

    /** The rank a receive listens to ({@code from}): {@link #ANY_SOURCE} when absent, else like a destination. */
    public static int source(IrExpr from, Operands operands, String comm, int size) {
        return from == null ? ANY_SOURCE : peer(from, operands, "source", "from", comm, size);
    }

    /** The tag of a send: at least 0. */
    public static int sendTag(IrExpr tag, Operands operands) {
        int t = operands.intValue(tag, "tag");
        if (t < 0) {
            throw new RuntimeFault(tag.at(), "tag is " + t + "; tags are at least 0");
        }
        return t;
    }

    /** The tag a receive listens to: {@link #ANY_TAG} when absent, else like a send's tag. */
    public static int receiveTag(IrExpr tag, Operands operands) {
        return tag == null ? ANY_TAG : sendTag(tag, operands);
    }

    /** The root of a rooted collective: a member's rank ({@link #PROC_NULL} is not allowed here). */
    public static int root(IrExpr root, Operands operands, String comm, int size) {
        int r = operands.intValue(root, "root");
        if (r < 0 || r >= size) {
            throw new OutsideCommunicator(root, "root is rank " + r + ", outside communicator " + comm + " of size " + size);
        }
        return r;
    }

    private static int peer(IrExpr expr, Operands operands, String role, String attribute, String comm, int size) {
        int r = operands.intValue(expr, role);
        if (r != PROC_NULL && (r < 0 || r >= size)) {
            throw new OutsideCommunicator(expr, "the " + role + " ('" + attribute + "') is rank " + r + ", outside communicator "
                    + comm + " of size " + size + " (use -1 for no peer)");
        }
        return r;
    }
}
