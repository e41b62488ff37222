package org.mpfl.ir.eval;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.IrProcess;
import org.mpfl.ir.IrWorkflow;

/**
 * How world ranks map onto processes for given param values: processes in document order, each a
 * contiguous block ({@code first('P')}, {@code count('P')}). The communication check and the rank
 * interpreter both place ranks with this class, so that {@code first}, {@code count} and a rank's
 * own process are worked out the same way before and during the run.
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
     * Computes the layout of a workflow's processes.
     *
     * @throws RuntimeFault if a count is below 1 or faults
     * @throws ConstantEnvironment.NotConstantException if a needed param has no value
     */
    public static ProcessLayout of(IrWorkflow workflow, Map<String, Object> params) {
        Map<String, IrExpr> ranks = new LinkedHashMap<>();
        for (IrProcess p : workflow.processes()) {
            ranks.put(p.name(), p.ranks());
        }
        return evaluate(ranks, params);
    }

    /**
     * Computes the layout from each process's rank-count expression (in document order) and the
     * run's params.
     *
     * @throws RuntimeFault if a count is below 1 or faults
     * @throws ConstantEnvironment.NotConstantException if a needed param has no value
     */
    public static ProcessLayout evaluate(Map<String, IrExpr> ranksByProcess, Map<String, Object> params) {
        ConstantEnvironment env = new ConstantEnvironment(params);
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (Map.Entry<String, IrExpr> e : ranksByProcess.entrySet()) {
            int n = ExpressionEvaluator.evaluateInt(e.getValue(), env);
            if (n < 1) {
                throw new RuntimeFault(e.getValue().at(), "process '" + e.getKey() + "' gets " + n
                        + " ranks; it needs at least 1");
            }
            counts.put(e.getKey(), n);
        }
        return new ProcessLayout(counts);
    }

    /**
     * The layout of processes whose rank counts are already known (in document order), e.g. as a
     * host or the engine's placement was given them.
     *
     * @throws IllegalArgumentException if a count is below 1
     */
    public static ProcessLayout ofCounts(Map<String, Integer> counts) {
        counts.forEach((name, n) -> {
            if (n == null || n < 1) {
                throw new IllegalArgumentException("process '" + name + "' gets " + n + " ranks; it needs at least 1");
            }
        });
        return new ProcessLayout(new LinkedHashMap<>(counts));
    }

    /** The number of ranks of all processes together. */
    public int worldSize() {
        return worldSize;
    }

    /** Process names in rank order. */
    public List<String> processes() {
        return Collections.unmodifiableList(processes);
    }

    /** Whether the workflow has a process of this name. */
    public boolean hasProcess(String process) {
        return first.containsKey(process);
    }

    /**
     * The first world rank of {@code process} ({@code first('P')}).
     *
     * @throws RuntimeFault (without location) if there is no such process
     */
    public int first(String process) {
        return known(first.get(process), process);
    }

    /**
     * The number of ranks of {@code process} ({@code count('P')}).
     *
     * @throws RuntimeFault (without location) if there is no such process
     */
    public int count(String process) {
        return known(count.get(process), process);
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

    /** The rank of world rank {@code rank} within its own process ({@code processRank()}). */
    public int rankInProcess(int rank) {
        return rank - first(processOf(rank));
    }

    private static int known(Integer value, String process) {
        if (value == null) {
            throw new RuntimeFault(null, "no process '" + process + "' in this workflow");
        }
        return value;
    }
}
