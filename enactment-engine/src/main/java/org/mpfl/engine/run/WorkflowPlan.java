package org.mpfl.engine.run;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.mpfl.engine.json.Json;
import org.mpfl.runtime.monitor.RunRequest.ProcessSlice;

/**
 * What the engine needs from a deployment plan to start a run: the workflow's name, its processes
 * in document order with service type and rank count, and default parameter values. Read leniently
 * from the compiler's plan JSON (fields it does not know are kept in {@link #planJson}).
 *
 * @param workflow  workflow name
 * @param processes processes in document order (their ranks are numbered consecutively from 0)
 * @param defaults  default parameter values
 * @param planJson  the whole plan as given
 */
public record WorkflowPlan(String workflow, List<ProcessSlice> processes, Map<String, Object> defaults, JsonNode planJson) {

    /** World size. */
    public int size() {
        return processes.stream().mapToInt(ProcessSlice::ranks).sum();
    }

    /**
     * Reads a plan: {@code {"workflow": name, "processes": [{"name","service","ranks"}], "params": {...}}}.
     * A process's {@code ranks} may also be given as {@code size} or {@code count}; {@code service}
     * defaults to the process name. Rank counts that depend on parameters must already be resolved
     * (the compiler does it with the run's parameters).
     */
    public static WorkflowPlan fromJson(JsonNode plan) {
        if (plan == null || !plan.isObject()) {
            throw new IllegalArgumentException("a deployment plan must be a JSON object");
        }
        String name = text(plan, "workflow", text(plan, "name", "workflow"));
        JsonNode ps = plan.get("processes");
        if (ps == null || !ps.isArray() || ps.isEmpty()) {
            throw new IllegalArgumentException("plan '" + name + "' has no processes");
        }
        List<ProcessSlice> slices = new ArrayList<>();
        for (JsonNode p : ps) {
            String pname = text(p, "name", null);
            if (pname == null) {
                throw new IllegalArgumentException("plan '" + name + "': a process without a name");
            }
            String service = text(p, "service", text(p, "serviceType", pname));
            JsonNode n = p.has("ranks") ? p.get("ranks") : p.has("size") ? p.get("size") : p.get("count");
            if (n != null && !n.isNumber() && p.hasNonNull("ranksWithDefaults")) {
                // the compiler's plan keeps the count as an expression over params; its value with the
                // defaults is what a plan alone can give (mpflc run resolves counts with --param values)
                n = p.get("ranksWithDefaults");
            }
            if (n == null || !n.canConvertToInt() || n.asInt() < 1) {
                throw new IllegalArgumentException("plan '" + name + "': process '" + pname
                        + "' needs a rank count of at least 1 (field 'ranks')");
            }
            slices.add(new ProcessSlice(pname, service, n.asInt()));
        }
        Map<String, Object> defaults = new LinkedHashMap<>();
        JsonNode params = plan.get("params");
        if (params != null && params.isArray()) {
            // the compiler's form: [{"name", "type", "default", "required"}]
            for (JsonNode decl : params) {
                JsonNode v = decl.get("default");
                if (decl.hasNonNull("name") && v != null && !v.isNull()) {
                    defaults.put(decl.get("name").asText(), Json.MAPPER.convertValue(v, Object.class));
                }
            }
        } else if (params != null && params.isObject()) {
            params.fields().forEachRemaining(e -> {
                JsonNode v = e.getValue();
                // a parameter declaration may be {"type":..,"default":..} or the bare default value
                JsonNode value = v.isObject() && v.has("default") ? v.get("default") : v.isObject() ? null : v;
                if (value != null && !value.isNull()) {
                    defaults.put(e.getKey(), Json.MAPPER.convertValue(value, Object.class));
                }
            });
        }
        JsonNode runParams = plan.get("runParams");
        if (runParams != null && runParams.isObject()) {
            // written by the engine's compiler bridge: the values the rank counts were resolved with
            runParams.fields().forEachRemaining(e -> defaults.put(e.getKey(), Json.MAPPER.convertValue(e.getValue(), Object.class)));
        }
        return new WorkflowPlan(name, List.copyOf(slices), defaults, plan);
    }

    private static String text(JsonNode n, String field, String dflt) {
        JsonNode v = n.get(field);
        return v == null || v.isNull() ? dflt : v.asText();
    }
}
