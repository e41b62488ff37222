package org.mpfl.bench.workflow;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Where a heat2d iteration's time goes, from a run's trace ({@code GET /api/runs/{id}/trace}): the median
 * duration of each operation a rank reports (compute — for heat2d-py the whole call through the rank's
 * worker —, sendrecv, allreduce) and the steady iteration time inside the run (from one compute span to
 * the next, so that neither the run's start — four interpreters importing NumPy — nor its end counts).
 *
 * <p>A rank keeps its first 5,000 spans (six per iteration: about 830 iterations); the first
 * {@code skip} iterations of each rank are left out as the run's own warm-up.
 */
record Heat2dPhases(double iterationUs, Map<String, Double> medianUs) {

    /**
     * @param skip iterations of each rank left out at the start
     * @return the phases, or null when the trace holds too few iterations
     */
    static Heat2dPhases of(JsonNode trace, int skip) {
        Map<Integer, List<JsonNode>> byRank = new TreeMap<>();
        for (JsonNode e : trace.path("traceEvents")) {
            if ("X".equals(e.path("ph").asText()) && e.path("pid").asInt() > 0 && e.path("tid").asInt() == 1) {
                byRank.computeIfAbsent(e.path("pid").asInt(), k -> new ArrayList<>()).add(e);
            }
        }
        Map<String, List<Long>> durations = new TreeMap<>();
        List<Double> iterations = new ArrayList<>();
        for (List<JsonNode> spans : byRank.values()) {
            spans.sort((a, b) -> Long.compare(a.path("ts").asLong(), b.path("ts").asLong()));
            List<Long> computeStarts = new ArrayList<>();
            for (JsonNode s : spans) {
                if (operation(s).equals("compute")) {
                    computeStarts.add(s.path("ts").asLong());
                }
            }
            // the first compute is the setup, the sweeps follow: one per iteration
            if (computeStarts.size() < skip + 3) {
                continue;
            }
            long from = computeStarts.get(1 + skip);
            long to = computeStarts.get(computeStarts.size() - 1);
            iterations.add((double) (to - from) / (computeStarts.size() - 2 - skip));
            for (JsonNode s : spans) {
                long ts = s.path("ts").asLong();
                if (ts >= from && ts < to) {
                    durations.computeIfAbsent(operation(s), k -> new ArrayList<>()).add(s.path("dur").asLong());
                }
            }
        }
        if (iterations.isEmpty()) {
            return null;
        }
        Map<String, Double> medians = new LinkedHashMap<>();
        durations.forEach((name, list) -> {
            long[] d = list.stream().mapToLong(Long::longValue).sorted().toArray();
            medians.put(name, (double) d[(d.length - 1) / 2]);
        });
        double[] its = iterations.stream().mapToDouble(Double::doubleValue).toArray();
        return new Heat2dPhases(Arrays.stream(its).average().orElseThrow(), medians);
    }

    /** The operation of a span: the first word of its name ("compute org.mpfl…JacobiSweep", "compute jacobi:sweep"). */
    private static String operation(JsonNode span) {
        String name = span.path("name").asText();
        int space = name.indexOf(' ');
        return space < 0 ? name : name.substring(0, space);
    }

    /** One line: the steady iteration and each operation's median, in µs. */
    String describe() {
        StringBuilder text = new StringBuilder(String.format(java.util.Locale.ROOT, "steady iteration %.0f µs; median", iterationUs));
        medianUs.forEach((name, us) -> text.append(String.format(java.util.Locale.ROOT, " %s %.0f", name, us)));
        return text.append(" µs").toString();
    }
}
