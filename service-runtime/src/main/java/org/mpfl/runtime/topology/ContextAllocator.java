package org.mpfl.runtime.topology;

import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * Agrees on context ids for new communicators without any central service. Each rank keeps the
 * lowest id it has not used yet; creating a communicator over a parent, every member proposes its
 * own and all take the maximum (carried by the collective that creation needs anyway: the
 * allgather of split, an allreduce for dup and cartesian), then move past it. The ids a rank takes
 * part in therefore strictly increase, so two communicators that share a member never share a
 * context; communicators with disjoint members (the colours of one split) may share one, which is
 * harmless because messages are addressed by (context, sender, receiver). Domains never mix because
 * every message also carries its domain id.
 *
 * <p>One allocator per rank instance ({@link #of}). Communicator creation on one rank must not run
 * concurrently in several threads (a parallel branch creating a communicator while another creates
 * one over an overlapping group could agree on the same id).
 */
public final class ContextAllocator {
    private static final Map<Object, ContextAllocator> BY_RANK = Collections.synchronizedMap(new WeakHashMap<>());

    private int next = ContextIds.FIRST_DERIVED;

    /** The allocator of one rank instance (created on first use, dropped with the instance). */
    public static ContextAllocator of(Object rankInstance) {
        return BY_RANK.computeIfAbsent(rankInstance, k -> new ContextAllocator());
    }

    /** This rank's proposal for the next communicator (an even id). */
    public synchronized int proposal() {
        return next;
    }

    /** Records that the members agreed on {@code context} (the maximum of their proposals). */
    public synchronized void agreed(int context) {
        if (context < next || (context & 1) != 0) {
            throw new IllegalStateException("agreed context " + context + " is below this rank's proposal " + next
                    + " or odd: the members did not agree on the maximum of their proposals");
        }
        if (context > Integer.MAX_VALUE - 4) {
            throw new IllegalStateException("communicator context ids exhausted");
        }
        next = context + 2;
    }
}
