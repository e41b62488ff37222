package org.mpfl.runtime.interp;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.eval.ProcessLayout;
import org.mpfl.protocol.RunRequest;

/**
 * Where this rank sits in the domain: its world rank and the workflow's {@link ProcessLayout} (MPMD:
 * processes in document order, each a contiguous block), which the compiler's communication check
 * uses too — so {@code first}, {@code count} and the rank's own process are worked out alike. This
 * class only adds what a running rank knows besides: its world rank, and that the domain's size must
 * match the layout.
 */
final class RankLayout {
    private final int worldRank;
    private final ProcessLayout layout;
    private final String ownProcess;

    private RankLayout(int worldRank, int worldSize, ProcessLayout layout) {
        if (layout.worldSize() != worldSize) {
            throw Faults.of("start", null, "the domain has " + worldSize + " ranks but the workflow's processes have "
                    + layout.worldSize() + " (" + counts(layout) + ")");
        }
        this.worldRank = worldRank;
        this.layout = layout;
        this.ownProcess = worldRank >= 0 && worldRank < worldSize ? layout.processOf(worldRank) : null;
    }

    /** The layout the host was given in {@code run}. */
    static RankLayout of(int worldRank, int worldSize, List<RunRequest.ProcessSlice> slices) {
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (RunRequest.ProcessSlice s : slices) {
            counts.put(s.name(), s.ranks());
        }
        return new RankLayout(worldRank, worldSize, ProcessLayout.ofCounts(counts));
    }

    /**
     * The layout computed from the workflow's rank-count expressions with the run's params. A
     * single process takes the whole domain, whatever its expression says.
     */
    static RankLayout of(int worldRank, int worldSize, List<InterpretedProgram.ProcessSpec> processes,
                            Map<String, Object> params) {
        if (processes.size() == 1) {
            return new RankLayout(worldRank, worldSize, ProcessLayout.ofCounts(Map.of(processes.get(0).name(), worldSize)));
        }
        Map<String, IrExpr> ranks = new LinkedHashMap<>();
        for (InterpretedProgram.ProcessSpec p : processes) {
            ranks.put(p.name(), p.ranks());
        }
        return new RankLayout(worldRank, worldSize, ProcessLayout.evaluate(ranks, params));
    }

    int worldRank() {
        return worldRank;
    }

    int worldSize() {
        return layout.worldSize();
    }

    ProcessLayout processLayout() {
        return layout;
    }

    String ownProcess() {
        return ownProcess;
    }

    boolean hasProcess(String name) {
        return layout.hasProcess(name);
    }

    /** {@code first('P')}; a fault without location for an unknown process. */
    int first(String process) {
        return layout.first(process);
    }

    /** {@code count('P')}; a fault without location for an unknown process. */
    int count(String process) {
        return layout.count(process);
    }

    private static Map<String, Integer> counts(ProcessLayout layout) {
        Map<String, Integer> counts = new LinkedHashMap<>();
        layout.processes().forEach(p -> counts.put(p, layout.count(p)));
        return counts;
    }
}
