package org.mpfl.runtime.topology;

import java.util.ArrayList;
import java.util.List;
import org.mpfl.protocol.RunRequest;

/**
 * The per-process communicators of an MPMD run: process i (document order) holds the next
 * {@code ranks} world ranks after those of the processes before it, and has context
 * {@link ContextIds#processContext(int) 2 + 2i}. Every rank computes the same layout from the
 * {@code run} request, so no communication is needed.
 */
public final class ProcessLayout {
    /** One process's slice of the world. */
    public record Slice(String name, int index, int firstRank, int ranks, int context) {
        public boolean contains(int worldRank) {
            return worldRank >= firstRank && worldRank < firstRank + ranks;
        }

        /** World ranks of the members in communicator-rank order. */
        public int[] members() {
            int[] m = new int[ranks];
            for (int i = 0; i < ranks; i++) {
                m[i] = firstRank + i;
            }
            return m;
        }
    }

    private final List<Slice> slices;

    private ProcessLayout(List<Slice> slices) {
        this.slices = slices;
    }

    public static ProcessLayout of(List<RunRequest.ProcessSlice> processes) {
        List<Slice> out = new ArrayList<>();
        int first = 0;
        for (int i = 0; i < processes.size(); i++) {
            RunRequest.ProcessSlice p = processes.get(i);
            out.add(new Slice(p.name(), i, first, p.ranks(), ContextIds.processContext(i)));
            first += p.ranks();
        }
        return new ProcessLayout(List.copyOf(out));
    }

    public List<Slice> slices() {
        return slices;
    }

    /** The process named {@code name}. */
    public Slice byName(String name) {
        for (Slice s : slices) {
            if (s.name().equals(name)) {
                return s;
            }
        }
        throw new IllegalArgumentException("no process named '" + name + "' in this run");
    }

    /** The process that world rank {@code rank} belongs to. */
    public Slice of(int worldRank) {
        for (Slice s : slices) {
            if (s.contains(worldRank)) {
                return s;
            }
        }
        throw new IllegalArgumentException("world rank " + worldRank + " belongs to no process");
    }
}
