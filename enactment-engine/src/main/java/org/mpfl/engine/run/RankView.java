package org.mpfl.engine.run;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.mpfl.protocol.FaultKind;

/**
 * What the engine knows about one rank of a run, from its events and {@code status} answers.
 * Guarded by the owning {@link Run}'s lock.
 */
final class RankView {
    final RankPlacement placement;
    String state = "PENDING";
    String activity;
    String location;
    boolean blocked;
    String waitingFor;
    double progressValue;
    double progressTotal;
    /**
     * The checkpoint whose progress {@link #progressValue} and {@link #progressTotal} are while this attempt's rank has
     * not reported its own yet ({@code null}: the rank's own report): an attempt that resumed from checkpoint K goes on
     * from where the run was then, not from 0.
     */
    Long progressFromCheckpoint;
    long startedMs;
    long endedMs;
    String error;
    /** Whose fault the rank's failure is, as its host said ({@code null}: not said, or not FAILED). */
    FaultKind fault;
    final Map<String, Object> outputs = new LinkedHashMap<>();
    final LogTail logs = new LogTail();
    final Map<Integer, Long> sentTo = new TreeMap<>();
    final Map<Integer, Long> bytesTo = new TreeMap<>();
    /** Point-to-point messages queued for and arrived from each peer, receipts sent to and received from each (DeadlockDetector.Traffic). */
    private final Map<Integer, Long> dataSentTo = new TreeMap<>();
    private final Map<Integer, Long> dataFrom = new TreeMap<>();
    private final Map<Integer, Long> receiptsSentTo = new TreeMap<>();
    private final Map<Integer, Long> receiptsFrom = new TreeMap<>();
    /** The four maps above as the detector takes them, copied again only after one of them changed: it asks every second. */
    private DeadlockDetector.Traffic traffic = DeadlockDetector.Traffic.NONE;
    private boolean trafficChanged;
    final Set<Long> seenSeq = new HashSet<>();
    long lastEventMs;
    /**
     * When the rank was last known alive: its last event's time, its last {@code status} answer (kept in the stored
     * detail as {@code lastSeenMs}, so that an engine started later knows it). A rank lost with its host ends then.
     */
    long lastSeenMs;
    /** Lost with its host: it never reported its end, which is {@link #lastSeenMs} (kept as {@code lost}). */
    boolean lost;
    long statusFailedSinceMs;
    /**
     * The highest event sequence number applied (kept in the stored detail as {@code lastSeq}): a
     * host sends a rank's events in order, so after an engine restart a redelivered event at or
     * below it was applied before (or dropped for good) and is ignored.
     */
    long maxSeq = -1;

    RankView(RankPlacement placement) {
        this.placement = placement;
    }

    /** The rank was heard of at {@code ms} (an event's time, a {@code status} answer's). */
    void seen(long ms) {
        lastSeenMs = Math.max(lastSeenMs, ms);
    }

    /**
     * Its host could not be reached when the run ended: it reads ABORTED, ending when it was last heard of (or
     * started), not when the engine gave up on it, which may be long after (an engine that was down meanwhile).
     */
    void lostWithHost() {
        state = "ABORTED";
        endedMs = Math.max(lastSeenMs, startedMs);
        blocked = false;
        lost = true;
        error = "lost: host " + placement.hostId() + " could not be reached when the run ended";
    }

    boolean isFinal() {
        return state.equals("DONE") || state.equals("FAILED") || state.equals("ABORTED");
    }

    /** The counts the deadlock detector compares across ranks. */
    DeadlockDetector.Traffic traffic() {
        if (trafficChanged) {
            traffic = new DeadlockDetector.Traffic(Map.copyOf(dataSentTo), Map.copyOf(dataFrom), Map.copyOf(receiptsSentTo),
                    Map.copyOf(receiptsFrom));
            trafficChanged = false;
        }
        return traffic;
    }

    long messagesSent() {
        return sentTo.values().stream().mapToLong(Long::longValue).sum();
    }

    /**
     * Takes the counters of a {@code COUNTERS} event or a {@code status} answer:
     * {@code {sentTo: {rank: n}, bytesTo: {rank: n}, dataSentTo: {rank: n}, dataFrom: {rank: n}, receiptsSentTo: {rank: n},
     * receiptsFrom: {rank: n}}}.
     */
    void applyCounters(Object value) {
        if (!(value instanceof Map<?, ?> m)) {
            return;
        }
        copyCounts(m.get("sentTo"), sentTo);
        copyCounts(m.get("bytesTo"), bytesTo);
        boolean changed = copyCounts(m.get("dataSentTo"), dataSentTo);
        changed |= copyCounts(m.get("dataFrom"), dataFrom);
        changed |= copyCounts(m.get("receiptsSentTo"), receiptsSentTo);
        changed |= copyCounts(m.get("receiptsFrom"), receiptsFrom);
        trafficChanged |= changed;
    }

    /** Whether a count changed. */
    private static boolean copyCounts(Object from, Map<Integer, Long> to) {
        boolean changed = false;
        if (from instanceof Map<?, ?> m) {
            for (Map.Entry<?, ?> e : m.entrySet()) {
                try {
                    Long count = (long) number(e.getValue(), 0);
                    changed |= !count.equals(to.put(Integer.valueOf(String.valueOf(e.getKey())), count));
                } catch (NumberFormatException ignored) {
                    // a rank key that is not a number is a bug in the sender; skip it rather than fail the run
                }
            }
        }
        return changed;
    }

    /**
     * The fault kind of a stored rank's {@code fault} ({@link #toJson}): {@code null} when it is missing (a detail an
     * older engine stored) or not a kind this engine knows, which counts as the workflow's, as a host that says none.
     */
    static FaultKind faultKind(String stored) {
        if (stored == null) {
            return null;
        }
        try {
            return FaultKind.valueOf(stored);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** A number sent as a number or as text; {@code dflt} when it is neither. */
    static double number(Object o, double dflt) {
        if (o instanceof Number n) {
            return n.doubleValue();
        }
        if (o instanceof String s) {
            try {
                return Double.parseDouble(s);
            } catch (NumberFormatException e) {
                return dflt;
            }
        }
        return dflt;
    }

    /** The ranks' message and byte counts as {@code {messages: [from][to], bytes: [from][to]}}. */
    static Map<String, Object> matrix(java.util.List<RankView> ranks) {
        int n = ranks.size();
        long[][] messages = new long[n][n];
        long[][] bytes = new long[n][n];
        for (RankView r : ranks) {
            int from = r.placement.rank();
            r.sentTo.forEach((to, c) -> {
                if (to >= 0 && to < n) {
                    messages[from][to] = c;
                }
            });
            r.bytesTo.forEach((to, c) -> {
                if (to >= 0 && to < n) {
                    bytes[from][to] = c;
                }
            });
        }
        return Map.of("messages", messages, "bytes", bytes);
    }

    /**
     * The ranks' messages and bytes between sites, {@code {"A": {"B": {messages, bytes}}, …}} (from site,
     * to site; within a site too), or {@code null} when every rank is in one site: what crossed the costly
     * links, e.g. to compare the hierarchical collectives with the flat ones.
     */
    static Map<String, Object> siteTraffic(java.util.List<RankView> ranks) {
        if (ranks.stream().map(r -> r.placement.endpoint().site()).distinct().count() < 2) {
            return null;
        }
        Map<String, Map<String, long[]>> counts = new TreeMap<>();
        for (RankView r : ranks) {
            String from = r.placement.endpoint().site();
            r.sentTo.forEach((to, c) -> {
                if (to >= 0 && to < ranks.size()) {
                    long[] mb = counts.computeIfAbsent(from, k -> new TreeMap<>())
                            .computeIfAbsent(ranks.get(to).placement.endpoint().site(), k -> new long[2]);
                    mb[0] += c;
                    mb[1] += r.bytesTo.getOrDefault(to, 0L);
                }
            });
        }
        Map<String, Object> out = new TreeMap<>();
        counts.forEach((from, tos) -> {
            Map<String, Object> row = new TreeMap<>();
            tos.forEach((to, mb) -> row.put(to, Map.of("messages", mb[0], "bytes", mb[1])));
            out.put(from, row);
        });
        return out;
    }

    Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("rank", placement.rank());
        m.put("process", placement.process());
        m.put("service", placement.service());
        m.put("host", placement.hostId());
        m.put("site", placement.endpoint().site());
        m.put("endpoint", placement.endpoint().soapUrl());
        m.put("state", state);
        m.put("activity", activity);
        m.put("location", location);
        m.put("blocked", blocked);
        m.put("waitingFor", blocked ? waitingFor : null);
        Integer waitsFor = blocked ? DeadlockDetector.waitedRank(waitingFor) : null;
        m.put("waitsForRank", waitsFor);
        m.put("progress", Map.of("value", progressValue, "total", progressTotal));
        m.put("progressFromCheckpoint", progressFromCheckpoint);
        m.put("startedMs", startedMs == 0 ? null : startedMs);
        m.put("endedMs", endedMs == 0 ? null : endedMs);
        m.put("elapsedMs", startedMs == 0 ? null : (endedMs == 0 ? System.currentTimeMillis() : endedMs) - startedMs);
        m.put("lastSeenMs", lastSeenMs == 0 ? null : lastSeenMs);
        m.put("lost", lost);
        m.put("error", error);
        m.put("fault", fault == null ? null : fault.name());
        m.put("outputs", new LinkedHashMap<>(outputs));
        m.put("logs", logs.lines());
        m.put("logCount", logs.count());
        m.put("sentTo", new TreeMap<>(sentTo));
        m.put("bytesTo", new TreeMap<>(bytesTo));
        m.put("lastSeq", maxSeq);
        return m;
    }
}
