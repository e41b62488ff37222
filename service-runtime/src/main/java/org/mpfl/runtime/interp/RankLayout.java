package org.mpfl.runtime.interp;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.mpfl.compiler.ir.eval.ConstantEnvironment;
import org.mpfl.compiler.ir.eval.ExpressionEvaluator;
import org.mpfl.protocol.RunRequest;

/**
 * Where this rank sits in the domain: world rank and size, and every process's first world rank and
 * rank count (MPMD: processes in document order, each a contiguous block).
 */
final class RankLayout {
    private final int worldRank;
    private final int worldSize;
    private final Map<String, int[]> blocks = new LinkedHashMap<>();
    private final String ownProcess;

    private RankLayout(int worldRank, int worldSize, Map<String, Integer> counts) {
        this.worldRank = worldRank;
        this.worldSize = worldSize;
        int next = 0;
        String own = null;
        for (Map.Entry<String, Integer> e : counts.entrySet()) {
            blocks.put(e.getKey(), new int[] {next, e.getValue()});
            if (worldRank >= next && worldRank < next + e.getValue()) {
                own = e.getKey();
            }
            next += e.getValue();
        }
        if (next != worldSize) {
            throw Faults.of("start", null, "the domain has " + worldSize + " ranks but the workflow's processes have "
                    + next + " (" + counts + ")");
        }
        this.ownProcess = own;
    }

    /** The layout the host was given in {@code run}. */
    static RankLayout of(int worldRank, int worldSize, List<RunRequest.ProcessSlice> slices) {
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (RunRequest.ProcessSlice s : slices) {
            counts.put(s.name(), s.ranks());
        }
        return new RankLayout(worldRank, worldSize, counts);
    }

    /** The layout computed from the workflow's rank-count expressions with the run's params. */
    static RankLayout of(int worldRank, int worldSize, List<InterpretedProgram.ProcessSpec> processes,
                            Map<String, Object> params) {
        Map<String, Integer> counts = new LinkedHashMap<>();
        ConstantEnvironment env = new ConstantEnvironment(params);
        for (InterpretedProgram.ProcessSpec p : processes) {
            counts.put(p.name(), processes.size() == 1 ? worldSize : ExpressionEvaluator.evaluateInt(p.ranks(), env));
        }
        return new RankLayout(worldRank, worldSize, counts);
    }

    int worldRank() {
        return worldRank;
    }

    int worldSize() {
        return worldSize;
    }

    String ownProcess() {
        return ownProcess;
    }

    boolean hasProcess(String name) {
        return blocks.containsKey(name);
    }

    int first(String process) {
        return block(process)[0];
    }

    int count(String process) {
        return block(process)[1];
    }

    private int[] block(String process) {
        int[] b = blocks.get(process);
        if (b == null) {
            throw new org.mpfl.compiler.ir.eval.RuntimeFault(null, "no process '" + process + "' in this workflow");
        }
        return b;
    }
}
