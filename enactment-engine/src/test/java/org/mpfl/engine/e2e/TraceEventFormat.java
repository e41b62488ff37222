package org.mpfl.engine.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks a trace against the Chrome Trace Event format (the JSON object form: {@code traceEvents},
 * the phases MPFL writes, their required fields) and against the run it claims to show: every rank
 * has its named track, complete events nest and never partly overlap within a thread, and the
 * send/receive spans pair up to the run's message counters.
 */
public final class TraceEventFormat {
    private static final Set<String> PHASES = Set.of("X", "B", "E", "i", "I", "M", "s", "t", "f", "C");

    private TraceEventFormat() {
    }

    /**
     * The format and the per-rank tracks; returns the trace's events.
     *
     * @param everyRankOperates whether every rank must have operation spans and a sampled activity lane (not when one
     *                          fails before any: then only the ranks that started must have the lane)
     */
    public static JsonNode check(JsonNode trace, JsonNode run, boolean everyRankOperates) {
        JsonNode events = trace.get("traceEvents");
        assertTrue(events != null && events.isArray(), "traceEvents must be an array: " + trace);
        Map<String, List<JsonNode>> slicesByThread = new HashMap<>();
        Map<Integer, String> processNames = new HashMap<>();
        for (JsonNode e : events) {
            String ph = e.path("ph").asText();
            assertTrue(PHASES.contains(ph), "unknown phase in " + e);
            assertTrue(e.path("pid").isInt() && e.path("tid").isInt(), "pid/tid must be integers: " + e);
            assertTrue(e.path("name").isTextual(), "name must be text: " + e);
            if (ph.equals("M")) {
                if (e.get("name").asText().equals("process_name")) {
                    processNames.put(e.get("pid").asInt(), e.path("args").path("name").asText());
                }
                continue;
            }
            assertTrue(e.path("ts").isNumber() && e.get("ts").asLong() >= 0, "ts must be a number >= 0: " + e);
            switch (ph) {
                case "X" -> {
                    assertTrue(e.path("dur").isNumber() && e.get("dur").asLong() >= 0, "X needs dur >= 0: " + e);
                    slicesByThread.computeIfAbsent(e.get("pid") + "/" + e.get("tid"), k -> new ArrayList<>()).add(e);
                }
                case "i", "I" -> assertTrue(Set.of("g", "p", "t").contains(e.path("s").asText("t")), "instant scope: " + e);
                case "s", "f" -> assertTrue(e.has("id"), "flow events need an id: " + e);
                default -> { }
            }
        }
        for (JsonNode rank : run.path("ranks")) {
            int r = rank.path("rank").asInt();
            String name = processNames.get(r + 1);
            assertTrue(name != null && name.startsWith("rank " + r + " "), "rank " + r + " has no named track (pid " + (r + 1) + "): " + processNames);
            assertTrue(!everyRankOperates || slicesByThread.containsKey((r + 1) + "/1"), "rank " + r + " has no operation spans");
            // a rank aborted before it started (a failure elsewhere, under load) has nothing to show on its lane
            boolean started = everyRankOperates || !rank.path("startedMs").isNull();
            assertTrue(!started || slicesByThread.containsKey((r + 1) + "/0"), "rank " + r + " has no sampled activity lane: " + rank);
        }
        slicesByThread.forEach(TraceEventFormat::nestWithoutOverlap);
        return events;
    }

    /** Complete events of one thread: each either ends before the next starts or contains it. */
    static void nestWithoutOverlap(String thread, List<JsonNode> slices) {
        slices.sort(Comparator.comparingLong((JsonNode e) -> e.get("ts").asLong()).thenComparingLong(e -> -e.get("dur").asLong()));
        Deque<long[]> open = new ArrayDeque<>();
        for (JsonNode e : slices) {
            long start = e.get("ts").asLong();
            long end = start + e.get("dur").asLong();
            while (!open.isEmpty() && open.peek()[1] <= start) {
                open.pop();
            }
            if (!open.isEmpty() && end > open.peek()[1]) {
                fail("thread " + thread + ": " + e + " overlaps an enclosing span [" + open.peek()[0] + ", " + open.peek()[1] + ") without nesting in it");
            }
            open.push(new long[] {start, end});
        }
    }

    /**
     * For a run whose only messages are point-to-point sends: the send spans from A to B, the receive
     * spans at B from A and the flow arrows between them equal the run's message counter A → B, and the
     * bytes of the sends add up to its byte counter.
     */
    public static void sendsAndReceivesMatchCounters(JsonNode events, JsonNode run) {
        int n = run.path("ranks").size();
        long[][] sends = new long[n][n];
        long[][] receives = new long[n][n];
        long[][] bytes = new long[n][n];
        int flows = 0;
        for (JsonNode e : events) {
            if (e.path("ph").asText().equals("s")) {
                flows++;
            }
            if (!e.path("ph").asText().equals("X") || e.path("tid").asInt() < 1) {
                continue;
            }
            int rank = e.get("pid").asInt() - 1;
            JsonNode args = e.path("args");
            if (e.path("cat").asText().equals("send")) {
                int to = args.path("peer").asInt();
                sends[rank][to]++;
                bytes[rank][to] += args.path("bytes").asLong();
            } else if (e.path("cat").asText().equals("receive")) {
                int from = args.path("peer").asInt();
                receives[from][rank]++;
                assertTrue(args.path("bytes").asLong() > 0, "a paired receive carries the bytes of its send: " + e);
            }
        }
        JsonNode matrix = run.path("matrix");
        long total = 0;
        for (int a = 0; a < n; a++) {
            for (int b = 0; b < n; b++) {
                long counted = matrix.path("messages").path(a).path(b).asLong();
                total += counted;
                assertEquals(counted, sends[a][b], "send spans " + a + " -> " + b + " vs the message counter");
                assertEquals(counted, receives[a][b], "receive spans at " + b + " from " + a + " vs the message counter");
                assertEquals(matrix.path("bytes").path(a).path(b).asLong(), bytes[a][b], "bytes of the sends " + a + " -> " + b);
            }
        }
        assertTrue(total > 0, "the run sent no messages: " + matrix);
        assertEquals(total, flows, "one flow arrow per message");
    }
}
