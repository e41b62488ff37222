package org.mpfl.compiler.comm;

import java.util.Arrays;
import org.mpfl.ir.semantics.Addressing;

/**
 * One communicator instance as the check computes it: its members (world ranks in communicator-rank
 * order) and, for a {@code cartesian} one, the grid (row-major, last dimension fastest, as
 * MPI_Cart_create without reordering). Messages and collectives match only within the same
 * instance ({@link #id()}), as MPI contexts do.
 */
final class Communicator {
    // the wildcards and "no peer" mean what they mean at run time: one definition for both
    static final int PROC_NULL = Addressing.PROC_NULL;
    static final int ANY_SOURCE = Addressing.ANY_SOURCE;
    static final int ANY_TAG = Addressing.ANY_TAG;

    private final int id;
    private final String name;
    private final int[] members;
    private final int[] dims;
    private final boolean[] periodic;

    Communicator(int id, String name, int[] members, int[] dims, boolean[] periodic) {
        this.id = id;
        this.name = name;
        this.members = members;
        this.dims = dims;
        this.periodic = periodic;
    }

    int id() {
        return id;
    }

    String name() {
        return name;
    }

    int size() {
        return members.length;
    }

    /** The world rank of communicator rank {@code commRank}. */
    int world(int commRank) {
        return members[commRank];
    }

    /** The communicator rank of world rank {@code worldRank}, or −1. */
    int rankOf(int worldRank) {
        for (int i = 0; i < members.length; i++) {
            if (members[i] == worldRank) {
                return i;
            }
        }
        return -1;
    }

    int[] members() {
        return members;
    }

    boolean isCartesian() {
        return dims != null;
    }

    int dimensions() {
        return dims.length;
    }

    int[] coords(int commRank) {
        int[] c = new int[dims.length];
        int rest = commRank;
        for (int d = dims.length - 1; d >= 0; d--) {
            c[d] = rest % dims[d];
            rest /= dims[d];
        }
        return c;
    }

    /** The rank {@code disp} steps along {@code dim}, or {@link #PROC_NULL} off a non-periodic edge. */
    int neighbor(int commRank, int dim, int disp) {
        int[] c = coords(commRank);
        long moved = (long) c[dim] + disp;
        if (periodic[dim]) {
            moved = Math.floorMod(moved, (long) dims[dim]);
        } else if (moved < 0 || moved >= dims[dim]) {
            return PROC_NULL;
        }
        c[dim] = (int) moved;
        int r = 0;
        for (int d = 0; d < dims.length; d++) {
            r = r * dims[d] + c[d];
        }
        return r;
    }

    @Override
    public String toString() {
        return name + Arrays.toString(members);
    }
}
