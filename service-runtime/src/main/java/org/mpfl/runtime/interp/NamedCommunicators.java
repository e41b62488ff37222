package org.mpfl.runtime.interp;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.mpfl.ir.eval.RuntimeFault;
import org.mpfl.runtime.api.CartesianCommunicator;
import org.mpfl.runtime.api.Communicator;
import org.mpfl.runtime.api.RankContext;

/**
 * The communicators one rank knows by name: {@code world}, its own process's (MPMD), and those its
 * {@code split}/{@code cartesian} activities created. A rank left out of a split (negative colour)
 * or beyond a Cartesian grid knows the name but is not a member.
 */
final class NamedCommunicators {
    /** A communicator this rank is not a member of. */
    private static final Object NOT_MEMBER = new Object();

    private final RankContext context;
    private final RankLayout layout;
    private final Map<String, Object> created = new ConcurrentHashMap<>();
    /** Every split/cartesian this rank took part in, in order: what a resumed rank makes again. */
    private final java.util.List<Made> log = new java.util.concurrent.CopyOnWriteArrayList<>();

    /**
     * How a communicator was made, with its operands evaluated: {@code kind} {@code split}
     * ({@code colour}, {@code key}) or {@code cartesian} ({@code dims}, {@code periodic}), over the
     * communicator {@code comm}.
     */
    record Made(String name, String kind, String comm, int colour, int key, int[] dims, boolean[] periodic) {
    }

    NamedCommunicators(RankContext context, RankLayout layout) {
        this.context = context;
        this.layout = layout;
    }

    /**
     * The communicator called {@code name}, which this rank must be a member of.
     *
     * @throws RuntimeFault (without location; the activity adds its own) otherwise
     */
    Communicator get(String name) {
        if (name.equals("world")) {
            return context.world();
        }
        Object c = created.get(name);
        if (c instanceof Communicator comm) {
            return comm;
        }
        if (c == NOT_MEMBER) {
            throw new RuntimeFault(null, "this rank (world rank " + layout.worldRank() + ") is not a member of communicator '"
                    + name + "'");
        }
        if (layout.hasProcess(name)) {
            if (!layout.ownProcess().equals(name)) {
                throw new RuntimeFault(null, "world rank " + layout.worldRank() + " belongs to process '"
                        + layout.ownProcess() + "', not to '" + name + "', so it cannot use communicator '" + name + "'");
            }
            Communicator own = context.process(name);
            created.put(name, own);
            return own;
        }
        throw new RuntimeFault(null, "communicator '" + name + "' does not exist yet on this rank (its <split> or"
                + " <cartesian> has not run here)");
    }

    /** Records what a split/cartesian created; {@code null}: this rank is not a member. */
    void define(Made made, Communicator c) {
        created.put(made.name(), c == null ? NOT_MEMBER : c);
        log.add(made);
    }

    /** The communicators this rank made, in order (a checkpoint saves them). */
    java.util.List<Made> made() {
        return java.util.List.copyOf(log);
    }

    /** {@code rank(c)}: −1 if this rank is not a member. */
    int rank(String name) {
        if (name.equals("world")) {
            return layout.worldRank();
        }
        if (layout.hasProcess(name) && !created.containsKey(name)) {
            return name.equals(layout.ownProcess()) ? layout.worldRank() - layout.first(name) : -1;
        }
        Object c = created.get(name);
        if (c == NOT_MEMBER) {
            return -1;
        }
        return get(name).rank();
    }

    /** {@code size(c)}; a process's size is known to every rank. */
    int size(String name) {
        if (name.equals("world")) {
            return layout.worldSize();
        }
        if (layout.hasProcess(name) && !created.containsKey(name)) {
            return layout.count(name);
        }
        return get(name).size();
    }

    CartesianCommunicator cartesian(String name) {
        Communicator c = get(name);
        if (c instanceof CartesianCommunicator cart) {
            return cart;
        }
        throw new RuntimeFault(null, "communicator '" + name + "' has no Cartesian topology (create it with <cartesian>)");
    }
}
