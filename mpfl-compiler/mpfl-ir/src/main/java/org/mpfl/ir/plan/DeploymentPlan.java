package org.mpfl.ir.plan;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.eval.ConstantEnvironment;
import org.mpfl.ir.eval.ExpressionEvaluator;
import org.mpfl.ir.eval.ProcessLayout;
import org.mpfl.ir.eval.RuntimeFault;

/**
 * What {@code mpflc compile} produces for the engine and the service hosts ({@code plan.json}, JSON
 * Schema in {@code docs/deployment-plan.schema.json}). Field names are stable: add, never rename.
 * World ranks are numbered over {@link #processes()} in this order.
 *
 * @param formatVersion {@link #FORMAT_VERSION}; readers refuse other major versions
 * @param source        the document's file name (no directories)
 * @param sourceSha256  SHA-256 of the document's bytes, lower-case hex
 * @param compiler      the compiler that wrote the plan
 * @param restarts      how many times a run may restart after an infrastructure fault
 *                      ({@code <workflow restarts="N">}); null: not given (0 unless the run says otherwise)
 */
public record DeploymentPlan(int formatVersion, String workflow, String version, String description, String source,
        String sourceSha256, String compiler, List<PlanParam> params, List<PlanLibrary> libraries,
        List<PlanProcess> processes, Integer restarts) {

    /** The plan format written by this compiler. */
    public static final int FORMAT_VERSION = 1;

    /** A plan whose document does not say how often a run may restart. */
    public DeploymentPlan(int formatVersion, String workflow, String version, String description, String source,
            String sourceSha256, String compiler, List<PlanParam> params, List<PlanLibrary> libraries,
            List<PlanProcess> processes) {
        this(formatVersion, workflow, version, description, source, sourceSha256, compiler, params, libraries, processes, null);
    }

    @com.fasterxml.jackson.annotation.JsonCreator
    public DeploymentPlan {
        params = List.copyOf(params);
        libraries = List.copyOf(libraries);
        processes = List.copyOf(processes);
    }

    /** The process called {@code name}, or null. */
    public PlanProcess process(String name) {
        return processes.stream().filter(p -> p.name().equals(name)).findFirst().orElse(null);
    }

    /** The default values of the params that have one, in declaration order. */
    public Map<String, Object> defaults() {
        Map<String, Object> values = new LinkedHashMap<>();
        for (PlanParam p : params) {
            if (p.defaultValue() != null) {
                values.put(p.name(), p.defaultValue());
            }
        }
        return values;
    }

    /**
     * The param values of a run: the defaults, overridden by {@code given}; numbers of declared params
     * are normalised to the declared type (as JSON gives them as the smallest fitting type).
     */
    public Map<String, Object> paramValues(Map<String, Object> given) {
        Map<String, Object> values = defaults();
        if (given != null) {
            given.forEach((name, value) -> {
                if (value == null) {
                    return;
                }
                PlanParam declared = params.stream().filter(p -> p.name().equals(name)).findFirst().orElse(null);
                values.put(name, declared == null ? value : new PlanParam(name, declared.type(), value, false).defaultValue());
            });
        }
        return values;
    }

    /**
     * What refuses a run that gives a required param no value, before any rank starts (a rank would fail at its start,
     * saying nothing of where the param is): one {@code FILE:LINE:COL: error: …} line per such param, at its
     * {@code <param>}, or {@code SOURCE: error: …} for a plan that does not say where (one written before it did).
     *
     * @param given  the run's values by name ({@code null}: none); the plan's defaults count as given
     * @param naming how the lines say to give a value: the command line's option or the REST request's field
     */
    public List<String> unvaluedParams(Map<String, Object> given, ParamValues.Naming naming) {
        List<String> lines = new ArrayList<>();
        for (PlanParam p : params) {
            if (p.required() && p.defaultValue() == null && (given == null || given.get(p.name()) == null)) {
                String where = p.at() != null ? p.at().toString() : source != null ? source : "plan '" + workflow + "'";
                lines.add(where + ": error: " + ParamValues.noValue(p.name(), naming));
            }
        }
        return lines;
    }

    /**
     * Which world ranks belong to which process for these param values (see {@link #paramValues}):
     * the rank-count expressions of the processes evaluated in plan order.
     *
     * @throws RuntimeFault if a count is below 1 or faults
     * @throws ConstantEnvironment.NotConstantException if a count needs a param without value
     */
    public ProcessLayout layout(Map<String, Object> paramValues) {
        Map<String, IrExpr> ranks = new LinkedHashMap<>();
        for (PlanProcess p : processes) {
            if (ranks.put(p.name(), p.ranks()) != null) {
                throw new IllegalArgumentException("plan '" + workflow + "' has two processes named '" + p.name() + "'");
            }
        }
        return ProcessLayout.evaluate(ranks, paramValues);
    }

    /**
     * This plan for a run with these param values: each given value becomes its param's default (so a
     * stored plan starts with them) and {@link PlanProcess#ranksWithDefaults()} follows. Archives
     * generated for the original plan stay valid: the programs are unchanged.
     */
    public DeploymentPlan withParamValues(Map<String, Object> values) {
        List<PlanParam> newParams = new ArrayList<>();
        for (PlanParam p : params) {
            Object value = values.containsKey(p.name()) ? values.get(p.name()) : p.defaultValue();
            newParams.add(new PlanParam(p.name(), p.type(), value, value == null, p.at()));
        }
        Map<String, Object> known = new LinkedHashMap<>();
        newParams.stream().filter(p -> p.defaultValue() != null).forEach(p -> known.put(p.name(), p.defaultValue()));
        ConstantEnvironment env = new ConstantEnvironment(known);
        List<PlanProcess> newProcesses = new ArrayList<>();
        for (PlanProcess p : processes) {
            Integer ranks;
            try {
                ranks = ExpressionEvaluator.evaluateInt(p.ranks(), env);
            } catch (ConstantEnvironment.NotConstantException | RuntimeFault e) {
                ranks = null;
            }
            newProcesses.add(new PlanProcess(p.name(), p.service(), p.ranks(), ranks, p.archive(), p.program()));
        }
        return new DeploymentPlan(formatVersion, workflow, version, description, source, sourceSha256, compiler, newParams,
                libraries, newProcesses, restarts);
    }
}
