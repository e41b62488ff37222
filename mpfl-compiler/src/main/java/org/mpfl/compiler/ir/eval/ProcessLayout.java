package org.mpfl.compiler.ir.eval;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.mpfl.compiler.ir.IrExpr;
import org.mpfl.compiler.ir.IrProcess;
import org.mpfl.compiler.ir.IrWorkflow;

/**
 * How world ranks map onto processes for given param values: processes in document order, each a
 * contiguous block ({@code first('P')}, {@code count('P')}).
 */
public final class ProcessLayout {
    private final List<String> processes = new ArrayList<>();
    private final Map<String, Integer> first = new LinkedHashMap<>();
    private final Map<String, Integer> count = new LinkedHashMap<>();
    private final int worldSize;

    private ProcessLayout(Map<String, Integer> counts) {
        int next = 0;
        for (Map.Entry<String, Integer> e : counts.entrySet()) {
            processes.add(e.getKey());
            first.put(e.getKey(), next);
            count.put(e.getKey(), e.getValue());
            next = Math.addExact(next, e.getValue());
        }
        worldSize = next;
    }

    /**
     * Computes the layout.
     *
     * @throws RuntimeFault if a count is below 1 or faults
     * @throws ConstantEnvironment.NotConstantException if a needed param has no value
     */
    public static ProcessLayout of(IrWorkflow workflow, Map<String, Object> params) {
        Map<String, IrExpr> ranks = new LinkedHashMap<>();
        for (IrProcess p : workflow.processes()) {
            ranks.put(p.name(), p.ranks());
        }
        return of(ranks, params);
    }

    /**
     * Computes the layout of processes given by their rank-count expressions, in rank order (the
     * map's iteration order), e.g. those of a deployment plan.
     *
     * @throws RuntimeFault if a count is below 1 or faults
     * @throws ConstantEnvironment.NotConstantException if a needed param has no value
     */
    public static ProcessLayout of(Map<String, IrExpr> ranksByProcess, Map<String, Object> params) {
        ConstantEnvironment env = new ConstantEnvironment(params);
        Map<String, Integer> counts = new LinkedHashMap<>();
        ranksByProcess.forEach((name, ranks) -> {
            int n = ExpressionEvaluator.evaluateInt(ranks, env);
            if (n < 1) {
                throw new RuntimeFault(ranks.at(), "process '" + name + "' gets " + n + " ranks; it needs at least 1");
            }
            counts.put(name, n);
        });
        return new ProcessLayout(counts);
    }

    /**
     * The layout of processes whose rank counts are already known, in rank order (the map's
     * iteration order).
     *
     * @throws IllegalArgumentException if a count is below 1
     */
    public static ProcessLayout ofCounts(Map<String, Integer> countsByProcess) {
        countsByProcess.forEach((name, n) -> {
            if (n == null || n < 1) {
                throw new IllegalArgumentException("process '" + name + "' gets " + n + " ranks; it needs at least 1");
            }
        });
        return new ProcessLayout(new LinkedHashMap<>(countsByProcess));
    }

    public int worldSize() {
        return worldSize;
    }

    /** Process names in rank order. */
    public List<String> processes() {
        return Collections.unmodifiableList(processes);
    }

    public int first(String process) {
        return first.get(process);
    }

    public int count(String process) {
        return count.get(process);
    }

    /** The process that world rank {@code rank} belongs to. */
    public String processOf(int rank) {
        for (String p : processes) {
            int f = first.get(p);
            if (rank >= f && rank < f + count.get(p)) {
                return p;
            }
        }
        throw new IllegalArgumentException("rank " + rank + " outside 0.." + (worldSize - 1));
    }
}
