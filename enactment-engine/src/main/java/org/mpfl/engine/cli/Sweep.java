package org.mpfl.engine.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.mpfl.ir.cli.UsageException;
import org.mpfl.ir.plan.ParamValues;
import org.mpfl.ir.spi.WorkflowCompiler;
import org.mpfl.engine.json.Json;

/**
 * {@code mpflc run FILE --sweep name=v1,v2,… [--sweep …] [--parallel K]}: one run per combination of the
 * swept values (their cartesian product, the first {@code --sweep} varying slowest), at most K at a
 * time on the same engine, one progress line per run as it ends, then a table of the runs' states and
 * outputs (or, with {@code --json}, one JSON array). Each combination is compiled on its own, since
 * rank counts may depend on the swept parameters; one whose document does not check is reported as
 * {@code INVALID} with its diagnostics and the others still run.
 */
final class Sweep {
    /** Runs at once unless {@code --parallel} says otherwise: two keep a laptop's two cores busy without starving the ranks. */
    static final int DEFAULT_PARALLEL = 2;
    /** More combinations than this are refused: a typo such as a range of thousands should not start thousands of runs. */
    static final int MAX_RUNS = 1000;

    /** One swept parameter and its values as typed. */
    record Axis(String name, List<String> values) {
    }

    /** One combination's result. */
    record Outcome(int index, Map<String, String> values, String run, String state, JsonNode outputs, String error, long elapsedMs) {
    }

    private Sweep() {
    }

    /** The {@code --sweep name=v1,v2} words as axes; values split at commas outside brackets (JSON arrays stay whole). */
    static List<Axis> axes(List<String> sweeps, Map<String, Object> fixedParams) throws UsageException {
        List<Axis> axes = new ArrayList<>();
        for (String s : sweeps) {
            int eq = s.indexOf('=');
            if (eq <= 0 || eq == s.length() - 1) {
                throw new UsageException("--sweep needs NAME=V1,V2,..., got '" + s + "'");
            }
            String name = s.substring(0, eq);
            if (fixedParams.containsKey(name)) {
                throw new UsageException("parameter '" + name + "' is given by both --param and --sweep");
            }
            if (axes.stream().anyMatch(a -> a.name().equals(name))) {
                throw new UsageException("parameter '" + name + "' is swept twice; give all its values in one --sweep");
            }
            List<String> values = split(s.substring(eq + 1));
            if (values.stream().anyMatch(String::isEmpty)) {
                throw new UsageException("--sweep " + name + " has an empty value in '" + s.substring(eq + 1) + "'");
            }
            axes.add(new Axis(name, values));
        }
        long combinations = 1;
        for (Axis a : axes) {
            combinations *= a.values().size();
            if (combinations > MAX_RUNS) {
                throw new UsageException("the sweep has more than " + MAX_RUNS + " combinations");
            }
        }
        return axes;
    }

    static List<String> split(String text) {
        List<String> out = new ArrayList<>();
        int depth = 0;
        StringBuilder current = new StringBuilder();
        for (char c : text.toCharArray()) {
            if (c == '[' || c == '{') {
                depth++;
            } else if (c == ']' || c == '}') {
                depth--;
            }
            if (c == ',' && depth == 0) {
                out.add(current.toString().trim());
                current.setLength(0);
            } else {
                current.append(c);
            }
        }
        out.add(current.toString().trim());
        return out;
    }

    /** The cartesian product, the first axis varying slowest. */
    static List<Map<String, String>> combinations(List<Axis> axes) {
        List<Map<String, String>> out = new ArrayList<>();
        out.add(new LinkedHashMap<>());
        for (Axis a : axes) {
            List<Map<String, String>> next = new ArrayList<>();
            for (Map<String, String> partial : out) {
                for (String v : a.values()) {
                    Map<String, String> m = new LinkedHashMap<>(partial);
                    m.put(a.name(), v);
                    next.add(m);
                }
            }
            out = next;
        }
        return out;
    }

    /**
     * Runs every combination on {@code client}'s engine; prints progress to {@code err}, the table or JSON to {@code out};
     * {@code common}: fields every run's start request carries ({@code project}).
     */
    static int run(EngineClient client, Path file, Map<String, Object> fixedParams, Map<String, Object> fixedRawParams,
                   Map<String, Object> common, List<Axis> axes, int parallel, int timeoutS, boolean json, PrintStream out, PrintStream err) throws Exception {
        List<Map<String, String>> combos = combinations(axes);
        int total = combos.size();
        AtomicInteger finished = new AtomicInteger();
        err.println("mpflc run: sweep of " + total + " run(s), " + Math.min(parallel, total) + " at a time");
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(parallel, total), r -> {
            Thread t = new Thread(r, "mpflc-sweep");
            t.setDaemon(true);
            return t;
        });
        List<Future<Outcome>> futures = new ArrayList<>();
        try {
            for (int i = 0; i < total; i++) {
                int index = i;
                Map<String, String> values = combos.get(i);
                futures.add(pool.submit(() -> {
                    Outcome o = one(client, file, fixedParams, fixedRawParams, common, index, values, timeoutS);
                    synchronized (err) {
                        err.printf("[%d/%d] %-30s %-9s %6.1f s%s%n", finished.incrementAndGet(), total, describe(values), o.state(),
                                o.elapsedMs() / 1000.0, o.run() == null ? "" : "  run " + o.run());
                    }
                    return o;
                }));
            }
            List<Outcome> outcomes = new ArrayList<>();
            for (Future<Outcome> f : futures) {
                outcomes.add(f.get());
            }
            if (json) {
                out.println(Json.write(outcomes.stream().map(Sweep::toJson).toList()));
            } else {
                table(axes, outcomes, out);
            }
            return outcomes.stream().allMatch(o -> o.state().equals("SUCCEEDED")) ? 0 : 1;
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * What refuses the whole sweep before any of its runs (and any local engine or host) starts: a param without default
     * that neither {@code --param} nor {@code --sweep} gives, said at its {@code <param>} as {@code mpflc run} says it;
     * empty when there is none. A swept value is never missing, so what the first combination lacks every one lacks;
     * a first combination that does not compile is left to the sweep, which reports it INVALID and runs the others.
     */
    static List<String> unvaluedInEvery(Path file, Map<String, Object> fixedParams, Map<String, Object> fixedRawParams,
                                        List<Axis> axes) {
        try {
            // compiled as for an engine: compiled for this JVM, a missing value would be one compile error among others
            WorkflowInput first = load(file, fixedParams, fixedRawParams, combinations(axes).get(0));
            return first.deploymentPlan().unvaluedParams(first.params(), ParamValues.Naming.COMMAND_LINE);
        } catch (java.io.IOException | WorkflowCompiler.CompileException e) {
            return List.of();
        }
    }

    /** The combination's input: the fixed params with its swept values, compiled with them. */
    private static WorkflowInput load(Path file, Map<String, Object> fixedParams, Map<String, Object> fixedRawParams,
                                      Map<String, String> values)
            throws java.io.IOException, WorkflowCompiler.CompileException {
        Map<String, Object> params = new LinkedHashMap<>(fixedParams);
        Map<String, Object> raw = new LinkedHashMap<>(fixedRawParams);
        values.forEach((k, v) -> {
            params.put(k, RunParams.scalar(v));
            raw.put(k, v);
        });
        return WorkflowInput.load(file, params, raw);
    }

    private static Outcome one(EngineClient client, Path file, Map<String, Object> fixedParams, Map<String, Object> fixedRawParams,
                               Map<String, Object> common, int index, Map<String, String> values, int timeoutS) {
        long started = System.currentTimeMillis();
        try {
            WorkflowInput input = load(file, fixedParams, fixedRawParams, values);
            List<String> unvalued = input.deploymentPlan().unvaluedParams(input.params(), ParamValues.Naming.COMMAND_LINE);
            if (!unvalued.isEmpty()) {
                return new Outcome(index, values, null, "INVALID", null, String.join("; ", unvalued),
                        System.currentTimeMillis() - started);
            }
            JsonNode run = RunCommand.startAndFollow(client, input, common, timeoutS, null);
            JsonNode error = run.get("error");
            return new Outcome(index, values, run.path("id").asText(), run.path("state").asText(), run.path("outputs"),
                    error == null || error.isNull() ? null : RunCommand.describeError(error).substring(1).trim(),
                    run.path("elapsedMs").asLong(System.currentTimeMillis() - started));
        } catch (WorkflowCompiler.CompileException e) {
            return new Outcome(index, values, null, "INVALID", null, String.join("; ", e.diagnostics()),
                    System.currentTimeMillis() - started);
        } catch (Exception e) {
            return new Outcome(index, values, null, "ERROR", null, e.getMessage() == null ? e.toString() : e.getMessage(),
                    System.currentTimeMillis() - started);
        }
    }

    static String describe(Map<String, String> values) {
        StringBuilder sb = new StringBuilder();
        values.forEach((k, v) -> sb.append(sb.length() == 0 ? "" : " ").append(k).append('=').append(v));
        return sb.toString();
    }

    private static Map<String, Object> toJson(Outcome o) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("params", o.values());
        m.put("run", o.run());
        m.put("state", o.state());
        m.put("outputs", o.outputs() == null ? Json.MAPPER.createObjectNode() : o.outputs());
        m.put("error", o.error());
        m.put("elapsedMs", o.elapsedMs());
        return m;
    }

    /** An output as one cell: the value of a one-rank output, else {@code {rank: value, …}} compactly. */
    static String cell(JsonNode byRank) {
        if (byRank == null || byRank.isMissingNode() || byRank.isNull()) {
            return "-";
        }
        if (byRank.size() == 1) {
            JsonNode v = byRank.elements().next();
            return v.isTextual() ? v.asText() : v.toString();
        }
        return byRank.toString();
    }

    /** A plain-text table: the swept values, the state, the seconds and every output that any run has (by name). */
    static void table(List<Axis> axes, List<Outcome> outcomes, PrintStream out) {
        List<String> outputNames = new ArrayList<>();
        for (Outcome o : outcomes) {
            if (o.outputs() != null) {
                o.outputs().fieldNames().forEachRemaining(n -> {
                    if (!outputNames.contains(n)) {
                        outputNames.add(n);
                    }
                });
            }
        }
        java.util.Collections.sort(outputNames); // the same columns whatever order the ranks reported them in
        List<List<String>> rows = new ArrayList<>();
        List<String> header = new ArrayList<>();
        axes.forEach(a -> header.add(a.name()));
        header.add("state");
        header.add("seconds");
        header.addAll(outputNames);
        rows.add(header);
        for (Outcome o : outcomes) {
            List<String> row = new ArrayList<>();
            axes.forEach(a -> row.add(o.values().get(a.name())));
            row.add(o.state());
            row.add(String.format(java.util.Locale.ROOT, "%.1f", o.elapsedMs() / 1000.0));
            for (String n : outputNames) {
                row.add(o.outputs() == null ? "-" : cell(o.outputs().get(n)));
            }
            rows.add(row);
        }
        TextTable.print(rows, out);
        for (Outcome o : outcomes) {
            if (o.error() != null) {
                out.println(describe(o.values()) + ": " + o.state() + ": " + o.error());
            }
        }
    }
}
