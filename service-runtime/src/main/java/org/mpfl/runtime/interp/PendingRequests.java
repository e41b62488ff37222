package org.mpfl.runtime.interp;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.mpfl.ir.diag.SourceLocation;
import org.mpfl.ir.IrActivity;
import org.mpfl.runtime.api.Request;

/**
 * The non-blocking operations of one rank still to be waited for, by request name. A name that is
 * waited for without a pending operation completes at once (MPI's null request); starting a new
 * operation under a name still pending is a fault, because the first one could never be waited for.
 */
final class PendingRequests {
    /**
     * A started isend/irecv.
     *
     * @param origin     the activity that started it ({@link IrActivity.IRecv} says where the message goes)
     * @param request    the runtime's request
     * @param waitingFor what a wait on it waits for (world ranks), for WAIT events
     * @param peerNull   whether the peer was -1 (MPI_PROC_NULL): nothing is received
     */
    record Pending(IrActivity origin, Request request, Supplier<String> waitingFor, boolean peerNull) {
        SourceLocation at() {
            return origin.at();
        }
    }

    private final Map<String, Pending> pending = new ConcurrentHashMap<>();

    void start(String name, Pending p) {
        Pending previous = pending.putIfAbsent(name, p);
        if (previous != null) {
            throw Faults.of(p.origin() instanceof IrActivity.ISend ? "isend" : "irecv", p.at(), "request '" + name
                    + "' is still pending from " + previous.at() + "; wait for it before starting another operation under that name");
        }
    }

    /** Removes and returns the pending operation of {@code name}, or {@code null} (nothing to wait for). */
    Pending take(String name) {
        return pending.remove(name);
    }

    /**
     * Names of operations still in progress: those with a real peer (one with peer -1 is complete
     * already, and waiting for it later does nothing, so a checkpoint may cross it).
     */
    java.util.List<String> inProgress() {
        return pending.entrySet().stream().filter(e -> !e.getValue().peerNull()).map(Map.Entry::getKey).sorted().toList();
    }

    /** Names never waited for (reported when the rank ends). */
    java.util.Set<String> names() {
        return pending.keySet();
    }
}
