package org.mpfl.compiler.ir.eval;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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

    private ProcessLayout(IrWorkflow workflow, Map<String, Object> params) {
        ConstantEnvironment env = new ConstantEnvironment(params);
        int next = 0;
        for (IrProcess p : workflow.processes()) {
            int n = ExpressionEvaluator.evaluateInt(p.ranks(), env);
            if (n < 1) {
                throw new RuntimeFault(p.ranks().at(), "process '" + p.name() + "' gets " + n + " ranks; it needs at least 1");
            }
            processes.add(p.name());
            first.put(p.name(), next);
            count.put(p.name(), n);
            next = Math.addExact(next, n);
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
        return new ProcessLayout(workflow, params);
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
