package org.mpfl.engine.run;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.mpfl.engine.store.RunStore;

/**
 * A run as Chrome Trace Event JSON (the format Perfetto and {@code chrome://tracing} open), built from
 * the run's stored events — the same events the console's timeline draws. The one builder behind
 * {@code GET /api/runs/{id}/trace}, {@code mpflc trace} and the console's trace button.
 *
 * <p>The mapping (times in microseconds from the run's creation):
 * <ul>
 * <li>one process per rank ({@code pid} = rank + 1, named {@code rank R · process @ host} by
 *     {@code process_name}/{@code process_sort_index} metadata); {@code pid} 0 is the run itself;</li>
 * <li>thread 1 of a rank ({@code operations}): a complete ({@code X}) event per operation the rank
 *     reported in its {@code SPANS} events — {@code compute}, {@code send}, {@code receive} (the time
 *     blocked until the message was there), {@code sendrecv}, {@code wait}/{@code waitall}, each
 *     collective and communicator creation — with {@code args} {@code peer} (world rank), {@code tag},
 *     {@code bytes} and {@code location}, and for a {@code sendrecv} also {@code from} and {@code fromTag}
 *     (its message's source and tag: it is paired as a send and as a receive); threads 2, 3, … hold the operations of {@code parallel}
 *     branches. A receive takes its {@code bytes} from the send it is paired with (the n-th message from
 *     a sender with a tag pairs with the n-th receive of it; MPI's non-overtaking order), and each pair is
 *     joined by a flow arrow ({@code s}/{@code f});</li>
 * <li>thread 0 of a rank ({@code activity (sampled)}): the console timeline's segments, from the
 *     {@code STATE}, {@code ACTIVITY} and {@code WAIT} events exactly as the console's
 *     {@code timeline-model.js} builds them;</li>
 * <li>instant events ({@code i}): a rank's end ({@code DONE}), its fault ({@code FAILED}, with the
 *     message and location), {@code ABORTED}, and every event of kind {@code CHECKPOINT} (any
 *     spelling: its fields become the instant's {@code args}); the run's state changes on {@code pid} 0.</li>
 * </ul>
 * Spans a rank did not keep (beyond its cap) are summed in {@code otherData.droppedSpans}, and so are
 * those beyond {@link #MAX_SPANS_PER_RANK} that the trace itself does not keep.
 */
public final class RunTrace {
    /** The thread of a rank's sampled activity segments. */
    static final int SAMPLED_TID = 0;
    /** The thread of a rank's main-thread operations; {@code parallel} branch lane N is {@code OPERATIONS_TID + N}. */
    static final int OPERATIONS_TID = 1;
    /** Stored events a trace reads at most (a run's ranks keep theirs far below: see {@link #MAX_SPANS_PER_RANK}). */
    private static final int MAX_EVENTS_READ = 200_000;
    /**
     * Spans of one rank the trace keeps at most: twice what a rank keeps itself, so that a rank that
     * does not keep its cap (a modified host, anyone holding the domain ID) cannot make the trace, the
     * engine's memory and the browser drawing it grow without bound; the rest are counted.
     */
    static final int MAX_SPANS_PER_RANK = 10_000;

    private RunTrace() {
    }

    /** The trace of a run from its detail ({@code GET /api/runs/{id}}) and its stored events, oldest first. */
    public static Map<String, Object> build(JsonNode detail, List<RunStore.StoredEvent> events) {
        long originUs = detail.path("createdMs").asLong() * 1000;
        List<Map<String, Object>> out = new ArrayList<>();
        Map<String, Object> dropped = new TreeMap<>();

        metadata(out, 0, null, "process_name", "run " + detail.path("workflow").asText() + " " + detail.path("id").asText());
        metadata(out, 0, null, "process_sort_index", -1);
        metadata(out, 0, 0, "thread_name", "run state");
        Map<Integer, List<JsonNode>> byRank = new TreeMap<>();
        for (JsonNode rank : detail.path("ranks")) {
            int r = rank.path("rank").asInt();
            byRank.put(r, new ArrayList<>());
            String name = "rank " + r + " · " + rank.path("process").asText("?") + " @ " + rank.path("host").asText("?");
            metadata(out, pid(r), null, "process_name", name);
            metadata(out, pid(r), null, "process_sort_index", r);
            metadata(out, pid(r), SAMPLED_TID, "thread_name", "activity (sampled)");
            metadata(out, pid(r), OPERATIONS_TID, "thread_name", "operations");
        }

        List<Span> spans = new ArrayList<>();
        java.util.Set<Integer> branchLanes = new java.util.HashSet<>();
        Map<Integer, int[]> spansOfRank = new HashMap<>();
        for (RunStore.StoredEvent e : events) {
            JsonNode b = e.body();
            if (e.type().equals("run")) {
                Map<String, Object> args = new LinkedHashMap<>();
                args.put("state", b.path("state").asText());
                if (b.hasNonNull("error")) {
                    args.put("error", b.get("error"));
                }
                out.add(instant(0, 0, "run " + b.path("state").asText(), "run", us(e.timeMs()) - originUs, "g", args));
                continue;
            }
            if (!e.type().equals("rank") || e.rank() == null || !byRank.containsKey(e.rank())) {
                continue;
            }
            int rank = e.rank();
            String type = b.path("type").asText();
            if (type.equals("SPANS")) {
                int[] kept = spansOfRank.computeIfAbsent(rank, r -> new int[2]);
                for (JsonNode s : b.path("value").path("spans")) {
                    if (kept[0] >= MAX_SPANS_PER_RANK) {
                        kept[1]++;
                        continue;
                    }
                    kept[0]++;
                    Span span = Span.of(rank, s, originUs);
                    spans.add(span);
                    if (span.lane > 0 && branchLanes.add(rank * 1000 + span.lane)) {
                        metadata(out, pid(rank), OPERATIONS_TID + span.lane, "thread_name", "parallel branch " + span.lane);
                    }
                }
                JsonNode d = b.path("value").path("dropped");
                if (d.isObject() && d.size() > 0) {
                    dropped.put(Integer.toString(rank), d);
                }
            } else if (type.equalsIgnoreCase("CHECKPOINT")) {
                Map<String, Object> args = new LinkedHashMap<>();
                b.fields().forEachRemaining(f -> {
                    if (!f.getValue().isNull() && !List.of("rank", "seq", "timeMs", "type").contains(f.getKey())) {
                        args.put(f.getKey(), f.getValue());
                    }
                });
                out.add(instant(pid(rank), OPERATIONS_TID, "checkpoint", "checkpoint",
                        us(b.path("timeMs").asLong()) - originUs, "p", args));
            } else if (type.equals("STATE") || type.equals("ACTIVITY") || type.equals("WAIT")) {
                byRank.get(rank).add(b);
            }
        }

        spansOfRank.forEach((rank, kept) -> {
            if (kept[1] > 0) {
                Map<String, Object> d = new LinkedHashMap<>();
                JsonNode reported = (JsonNode) dropped.get(Integer.toString(rank));
                if (reported != null) {
                    reported.fields().forEachRemaining(f -> d.put(f.getKey(), f.getValue()));
                }
                d.put("(beyond the engine's cap of " + MAX_SPANS_PER_RANK + ")", Map.of("count", kept[1]));
                dropped.put(Integer.toString(rank), d);
            }
        });
        for (Map.Entry<Integer, List<JsonNode>> r : byRank.entrySet()) {
            sampledLane(out, r.getKey(), r.getValue(), originUs, detail);
        }
        pairMessages(spans, out);
        for (Span s : spans) {
            out.add(s.toEvent());
        }
        Map<String, Object> trace = new LinkedHashMap<>();
        trace.put("traceEvents", out);
        trace.put("displayTimeUnit", "ms");
        Map<String, Object> other = new LinkedHashMap<>();
        other.put("run", detail.path("id").asText());
        other.put("workflow", detail.path("workflow").asText());
        other.put("state", detail.path("state").asText());
        other.put("createdMs", detail.path("createdMs").asLong());
        other.put("droppedSpans", dropped);
        trace.put("otherData", other);
        return trace;
    }

    /** How many stored events a trace reads at most (a run's events are capped by the ranks' span caps long before). */
    static int maxEvents() {
        return MAX_EVENTS_READ;
    }

    /** One operation of a rank. */
    private static final class Span {
        final int rank;
        final String name;
        final String cat;
        final long ts;
        final long dur;
        final int lane;
        final Integer peer;
        final Integer tag;
        /** Where a sendrecv's message came from (world rank) and its tag; {@code null} for other operations. */
        final Integer from;
        final Integer fromTag;
        Long bytes;
        final String location;
        Integer pairedWith;

        private Span(int rank, JsonNode s, long originUs) {
            this.rank = rank;
            this.name = s.path("name").asText("?");
            this.cat = s.path("cat").asText("operation");
            this.ts = s.path("ts").asLong() - originUs;
            this.dur = Math.max(0, s.path("dur").asLong());
            this.lane = Math.max(0, Math.min(999, s.path("lane").asInt()));
            this.peer = s.has("peer") ? s.get("peer").asInt() : null;
            this.tag = s.has("tag") ? s.get("tag").asInt() : null;
            this.from = s.hasNonNull("from") ? s.get("from").asInt() : null;
            this.fromTag = s.hasNonNull("fromTag") ? s.get("fromTag").asInt() : null;
            this.bytes = s.has("bytes") ? s.get("bytes").asLong() : null;
            this.location = s.hasNonNull("loc") ? s.get("loc").asText() : null;
        }

        static Span of(int rank, JsonNode s, long originUs) {
            return new Span(rank, s, originUs);
        }

        Map<String, Object> toEvent() {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("name", name);
            e.put("cat", cat);
            e.put("ph", "X");
            e.put("ts", ts);
            e.put("dur", dur);
            e.put("pid", pid(rank));
            e.put("tid", OPERATIONS_TID + lane);
            Map<String, Object> args = new LinkedHashMap<>();
            if (peer != null) {
                args.put("peer", peer);
            }
            if (tag != null) {
                args.put("tag", tag);
            }
            if (from != null) {
                args.put("from", from);
                args.put("fromTag", fromTag);
            }
            if (bytes != null) {
                args.put("bytes", bytes);
            }
            if (location != null) {
                args.put("location", location);
            }
            e.put("args", args);
            return e;
        }
    }

    /**
     * Pairs the n-th send from A to B with tag T with the n-th receive at B from A with tag T: the receive
     * gets the send's bytes, and both get a flow arrow. Sends and receives are taken in time order per rank.
     */
    private static void pairMessages(List<Span> spans, List<Map<String, Object>> out) {
        spans.sort(Comparator.comparingInt((Span s) -> s.rank).thenComparingLong(s -> s.ts));
        Map<String, ArrayDeque<Span>> sends = new HashMap<>();
        for (Span s : spans) {
            if ((s.cat.equals("send") || s.cat.equals("sendrecv")) && s.peer != null) {
                sends.computeIfAbsent(s.rank + ">" + s.peer + "#" + s.tag, k -> new ArrayDeque<>()).add(s);
            }
        }
        int flow = 0;
        for (Span r : spans) {
            // a receive names its source as peer; a sendrecv, whose peer is where it sent, names it as from
            String key = r.cat.equals("receive") && r.peer != null ? r.peer + ">" + r.rank + "#" + r.tag
                    : r.from != null ? r.from + ">" + r.rank + "#" + r.fromTag : null;
            if (key == null) {
                continue;
            }
            ArrayDeque<Span> q = sends.get(key);
            Span s = q == null ? null : q.poll();
            if (s == null) {
                continue;
            }
            if (r.bytes == null) {
                r.bytes = s.bytes;
            }
            flow++;
            out.add(flowEvent("s", flow, s.rank, OPERATIONS_TID + s.lane, s.ts));
            out.add(flowEvent("f", flow, r.rank, OPERATIONS_TID + r.lane, r.ts + r.dur));
        }
    }

    private static Map<String, Object> flowEvent(String ph, int id, int rank, int tid, long ts) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("name", "message");
        e.put("cat", "message");
        e.put("ph", ph);
        e.put("id", id);
        e.put("ts", ts);
        e.put("pid", pid(rank));
        e.put("tid", tid);
        if (ph.equals("f")) {
            e.put("bp", "e");
        }
        return e;
    }

    /**
     * The console timeline's segments of one rank (as {@code timeline-model.js}: an ACTIVITY or WAIT
     * closes the open segment and opens its own; RUNNING opens "running" when nothing is open; a final
     * state closes it and leaves a marker); a segment still open ends at the rank's or the run's end.
     */
    private static void sampledLane(List<Map<String, Object>> out, int rank, List<JsonNode> events, long originUs,
                                    JsonNode detail) {
        events.sort(Comparator.comparingLong((JsonNode e) -> e.path("timeMs").asLong()).thenComparingLong(e -> e.path("seq").asLong()));
        String[] open = null; // name, cat, location
        long openStart = 0;
        for (JsonNode e : events) {
            long t = us(e.path("timeMs").asLong()) - originUs;
            String type = e.path("type").asText();
            if (type.equals("STATE")) {
                String state = e.path("state").asText();
                if (state.equals("RUNNING")) {
                    if (open == null) {
                        open = new String[] {"running", "running", null};
                        openStart = t;
                    }
                } else if (state.equals("DONE") || state.equals("FAILED") || state.equals("ABORTED")) {
                    if (open != null) {
                        out.add(segment(rank, open, openStart, t));
                        open = null;
                    }
                    String message = e.path("message").asText("");
                    String shown = state.equals("FAILED") && message.startsWith("DomainAbortedException") ? "ABORTED" : state;
                    Map<String, Object> args = new LinkedHashMap<>();
                    if (!message.isEmpty()) {
                        args.put("message", message);
                    }
                    if (e.hasNonNull("location")) {
                        args.put("location", e.get("location").asText());
                    }
                    if (e.hasNonNull("activity")) {
                        args.put("activity", e.get("activity").asText());
                    }
                    out.add(instant(pid(rank), SAMPLED_TID, shown.equals("FAILED") ? "fault" : shown.toLowerCase(Locale.ROOT),
                            shown.equals("FAILED") ? "fault" : "state", t, "p", args));
                }
            } else {
                if (open != null) {
                    out.add(segment(rank, open, openStart, t));
                }
                String activity = e.path("activity").asText("activity");
                open = type.equals("WAIT")
                        ? new String[] {"waits: " + e.path("message").asText(activity), "wait", e.path("location").asText(null)}
                        : new String[] {activity, "activity", e.path("location").asText(null)};
                openStart = t;
            }
        }
        if (open != null) {
            long end = detail.hasNonNull("endedMs") ? us(detail.get("endedMs").asLong()) - originUs
                    : us(System.currentTimeMillis()) - originUs;
            out.add(segment(rank, open, openStart, Math.max(openStart, end)));
        }
    }

    private static Map<String, Object> segment(int rank, String[] what, long start, long end) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("name", what[0]);
        e.put("cat", what[1]);
        e.put("ph", "X");
        e.put("ts", start);
        e.put("dur", Math.max(0, end - start));
        e.put("pid", pid(rank));
        e.put("tid", SAMPLED_TID);
        Map<String, Object> args = new LinkedHashMap<>();
        if (what[2] != null) {
            args.put("location", what[2]);
        }
        e.put("args", args);
        return e;
    }

    private static Map<String, Object> instant(int pid, int tid, String name, String cat, long ts, String scope,
                                               Map<String, Object> args) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("name", name);
        e.put("cat", cat);
        e.put("ph", "i");
        e.put("s", scope);
        e.put("ts", ts);
        e.put("pid", pid);
        e.put("tid", tid);
        e.put("args", args);
        return e;
    }

    private static void metadata(List<Map<String, Object>> out, int pid, Integer tid, String name, Object value) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("name", name);
        e.put("ph", "M");
        e.put("pid", pid);
        e.put("tid", tid == null ? 0 : tid);
        e.put("args", Map.of(name.endsWith("sort_index") ? "sort_index" : "name", value));
        out.add(e);
    }

    static int pid(int rank) {
        return rank + 1;
    }

    private static long us(long ms) {
        return ms * 1000;
    }

}
