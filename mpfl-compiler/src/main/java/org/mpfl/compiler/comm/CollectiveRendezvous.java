package org.mpfl.compiler.comm;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.mpfl.ir.IrActivity;

/**
 * Where the members of a communicator meet for their collectives: the k-th collective a member
 * enters on a communicator instance is matched with the k-th of every other member (MPI requires
 * the same collectives in the same order). When all members arrived, the slot is checked (same
 * kind, root, op, grid) and then completed by {@link CollectiveResults}, or reported as a mismatch.
 */
final class CollectiveRendezvous {

    /** One member's arrival: the activity, its comparable signature and what it contributes. */
    record Arrival(SymbolicRank rank, IrActivity activity, int commRank, String signature, Integer root, Object contribution) {
    }

    /** The k-th collective of a communicator instance. */
    static final class Slot {
        final Communicator comm;
        final int index;
        final Arrival[] arrivals;
        int arrived;
        boolean completed;
        boolean failed;
        Object[] results;

        Slot(Communicator comm, int index) {
            this.comm = comm;
            this.index = index;
            this.arrivals = new Arrival[comm.size()];
        }

        /** The arrivals so far, in communicator-rank order. */
        List<Arrival> present() {
            List<Arrival> list = new ArrayList<>();
            for (Arrival a : arrivals) {
                if (a != null) {
                    list.add(a);
                }
            }
            return list;
        }

        /** World ranks of the members that have not arrived. */
        List<Integer> missing() {
            List<Integer> list = new ArrayList<>();
            for (int i = 0; i < arrivals.length; i++) {
                if (arrivals[i] == null) {
                    list.add(comm.world(i));
                }
            }
            return list;
        }
    }

    private final Map<Integer, List<Slot>> slots = new HashMap<>();
    private final CollectiveResults results;
    private final CommunicationReporter reporter;
    /** Told about every completed collective (the workflow graph); the check itself needs none. */
    CommunicationObserver observer = CommunicationObserver.NONE;

    CollectiveRendezvous(CollectiveResults results, CommunicationReporter reporter) {
        this.results = results;
        this.reporter = reporter;
    }

    /** Records an arrival; completes (or fails) the slot when it was the last member. */
    Slot arrive(Communicator comm, Arrival arrival) {
        int index = arrival.rank().nextCollectiveIndex(comm);
        List<Slot> list = slots.computeIfAbsent(comm.id(), id -> new ArrayList<>());
        while (list.size() <= index) {
            list.add(new Slot(comm, list.size()));
        }
        Slot slot = list.get(index);
        slot.arrivals[arrival.commRank()] = arrival;
        slot.arrived++;
        if (slot.arrived == comm.size()) {
            finish(slot);
        }
        return slot;
    }

    private void finish(Slot slot) {
        String first = slot.arrivals[0].signature();
        for (Arrival a : slot.arrivals) {
            if (!a.signature().equals(first)) {
                slot.failed = true;
                reporter.collectiveMismatch(slot);
                return;
            }
        }
        slot.results = results.complete(slot);
        slot.completed = true;
        observer.collective(slot);
    }

    /** Slots some members entered and that never completed. */
    List<Slot> incomplete() {
        List<Slot> open = new ArrayList<>();
        slots.values().forEach(list -> list.stream().filter(s -> !s.completed && !s.failed && s.arrived > 0).forEach(open::add));
        open.sort((a, b) -> Integer.compare(a.present().get(0).rank().worldRank(), b.present().get(0).rank().worldRank()));
        return open;
    }
}
