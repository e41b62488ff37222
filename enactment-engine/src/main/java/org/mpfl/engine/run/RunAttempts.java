package org.mpfl.engine.run;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.mpfl.engine.run.checkpoint.CheckpointStore;

/**
 * A run's history across attempts: its restart budget, one entry per attempt (every placement of its
 * ranks under a domain: the first start, a re-placement after hosts failed the start, a restart after
 * an infrastructure fault, a resume asked for by a user), and the checkpoints its ranks took.
 *
 * <p>Placement re-tries (hosts that refused a deployment or {@code run}) and restarts share the one
 * attempt counter of {@link Run#attempts()}; the run's {@code hostFaults} name the attempt they ended.
 * In the run detail: {@code restarts {allowed, used}}, {@code attemptLog [{attempt, cause,
 * resumedFrom, note, startMs, runningMs, endMs, outcome, outcomeMessage, hosts}]} and {@code checkpoints [{seq, attempt, ranks, parts, bytes,
 * firstMs, lastMs, spanMs, complete}]}.
 */
final class RunAttempts {
    /** Checkpoints listed in the run detail (the newest; older ones only add to {@code checkpointsTaken}). */
    static final int LISTED_CHECKPOINTS = 50;

    /** The cause of an attempt that {@code mpflc resume} (or the console's Resume) started. */
    static final String RESUMED_CAUSE = "resumed by user";

    private int restartsAllowed;
    private int restartsUsed;
    private final List<Map<String, Object>> log = new ArrayList<>();
    private String nextCause;
    private Long resumedFrom;
    private String note;
    private Long faultMs;
    private final TreeMap<Long, Map<String, Object>> checkpoints = new TreeMap<>();
    /** Complete checkpoints taken over all attempts. */
    private int checkpointsTaken;
    /** Outputs ranks reported in earlier attempts, by rank: still valid when the next one resumes from a checkpoint. */
    private final Map<Integer, Map<String, Object>> carried = new HashMap<>();
    /** Ranks that reported {@code <progress>} in an earlier attempt: resumed from a checkpoint, they start at its progress. */
    private final Set<Integer> progressReporters = new HashSet<>();

    synchronized void restartsAllowed(int n) {
        restartsAllowed = Math.max(0, n);
    }

    synchronized int restartsAllowed() {
        return restartsAllowed;
    }

    synchronized int restartsUsed() {
        return restartsUsed;
    }

    /** Uses one restart; {@code false} when none is left. */
    synchronized boolean takeRestart() {
        if (restartsUsed >= restartsAllowed) {
            return false;
        }
        restartsUsed++;
        return true;
    }

    /**
     * Says why the next attempt starts and where it resumes; later re-placements within it keep the
     * resume point.
     *
     * @param resumedFrom the checkpoint resumed from ({@code null}: from the start)
     * @param note        what became of newer checkpoints (unusable ones), or {@code null}
     * @param faultMs     when the fault that caused it was noticed ({@code null}: no fault)
     */
    synchronized void next(String cause, Long resumedFrom, String note, Long faultMs) {
        this.nextCause = cause;
        this.faultMs = faultMs;
        this.resumedFrom = resumedFrom;
        this.note = note;
        if (resumedFrom == null) {
            carried.clear(); // from the start: every output is produced again
        }
        long from = resumedFrom == null ? 0 : resumedFrom;
        // later checkpoints are gone from disk: the new attempt takes them again
        checkpoints.tailMap(from, false).values().forEach(m -> m.putIfAbsent("unusable",
                "discarded: a later attempt resumed from " + (from == 0 ? "the start" : "checkpoint " + from)));
    }

    /** The checkpoint the current attempt resumed from ({@code null}: the start). */
    synchronized Long resumedFrom() {
        return resumedFrom;
    }

    /** Records attempt {@code attempt} placed on these ranks (called under the run's lock). */
    synchronized void placed(int attempt, List<RankView> ranks, long nowMs) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("attempt", attempt);
        e.put("cause", nextCause != null ? nextCause : attempt == 1 ? "start" : "placed again after host faults of attempt "
                + (attempt - 1));
        e.put("resumedFrom", resumedFrom);
        e.put("note", note);
        e.put("startMs", nowMs);
        e.put("faultMs", faultMs);
        e.put("runningMs", null);
        e.put("recoveryMs", null);
        e.put("endMs", null);
        e.put("outcome", null);
        e.put("outcomeMessage", null);
        LinkedHashSet<String> hosts = new LinkedHashSet<>();
        ranks.forEach(r -> hosts.add(r.placement.hostId()));
        e.put("hosts", List.copyOf(hosts));
        log.add(e);
        nextCause = null;
        note = null;
        faultMs = null;
        if (resumedFrom != null) {
            Map<?, ?> then = resumedProgress();
            for (RankView r : ranks) {
                carried.getOrDefault(r.placement.rank(), Map.of()).forEach(r.outputs::putIfAbsent);
                if (then != null && progressReporters.contains(r.placement.rank())) {
                    r.progressValue = RankView.number(then.get("value"), 0);
                    r.progressTotal = RankView.number(then.get("total"), 0);
                    r.progressFromCheckpoint = resumedFrom;
                }
            }
        }
    }

    /** Where the run was when the checkpoint the current attempt resumed from was taken ({@code {value, total}}), or null. */
    private Map<?, ?> resumedProgress() {
        Map<String, Object> c = resumedFrom == null ? null : checkpoints.get(resumedFrom);
        return c != null && c.get("progress") instanceof Map<?, ?> p && RankView.number(p.get("total"), 0) > 0 ? p : null;
    }

    /** {@link #resumedProgress} as a fraction 0..1 (0 when there is none). */
    synchronized double resumedFraction() {
        Map<?, ?> p = resumedProgress();
        return p == null ? 0 : Math.min(1, RankView.number(p.get("value"), 0) / RankView.number(p.get("total"), 1));
    }

    /**
     * Every rank of attempt {@code attempt} accepted {@code run}: records when, and for an attempt
     * caused by a fault, {@code recoveryMs}, the time from noticing the fault to all ranks running again.
     */
    synchronized void running(int attempt, long nowMs) {
        for (Map<String, Object> e : log) {
            if (e.get("attempt") instanceof Integer a && a == attempt && e.get("runningMs") == null) {
                e.put("runningMs", nowMs);
                if (e.get("faultMs") instanceof Long f) {
                    e.put("recoveryMs", nowMs - f);
                }
            }
        }
    }

    /**
     * The current attempt ended: the run reached final state {@code outcome}, or {@code INTERRUPTED}
     * when another attempt replaces it (a restart, a re-placement). Only the first end of an attempt
     * counts: a run given up by a restart is not ended again by its new attempt's start.
     */
    synchronized void ended(String outcome, String message, long nowMs) {
        if (log.isEmpty()) {
            return;
        }
        Map<String, Object> last = log.get(log.size() - 1);
        if (last.get("endMs") == null) {
            last.put("endMs", nowMs);
            last.put("outcome", outcome);
            last.put("outcomeMessage", message);
        }
    }

    /** Whether a user resumed the run at least once. */
    synchronized boolean resumed() {
        return log.stream().anyMatch(e -> RESUMED_CAUSE.equals(e.get("cause")));
    }

    /** Keeps the outputs of the ranks of the attempt being given up (called under the run's lock). */
    synchronized void keepOutputs(List<RankView> ranks) {
        for (RankView r : ranks) {
            carried.computeIfAbsent(r.placement.rank(), k -> new LinkedHashMap<>()).putAll(r.outputs);
            if (r.progressTotal > 0) {
                progressReporters.add(r.placement.rank());
            }
        }
    }

    /** Records what is known of a checkpoint after one of its parts arrived. */
    synchronized void checkpoint(CheckpointStore.Checkpoint c) {
        if (c.complete()) {
            checkpointsTaken++;
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("seq", c.seq());
        m.put("attempt", c.attempt());
        m.put("ranks", c.ranks());
        m.put("parts", c.parts());
        m.put("bytes", c.bytes());
        m.put("firstMs", c.firstMs());
        m.put("lastMs", c.lastMs());
        m.put("spanMs", c.lastMs() - c.firstMs());
        m.put("complete", c.complete());
        Map<String, Object> before = checkpoints.get(c.seq());
        if (before != null && before.get("attempt") instanceof Integer a && a == c.attempt() && before.containsKey("rankMs")) {
            m.put("rankMs", before.get("rankMs")); // a rank's report may arrive before the last part
        }
        if (before != null && before.get("attempt") instanceof Integer a && a == c.attempt() && before.containsKey("progress")) {
            m.put("progress", before.get("progress"));
        }
        checkpoints.put(c.seq(), m);
        while (checkpoints.size() > LISTED_CHECKPOINTS) {
            checkpoints.pollFirstEntry();
        }
    }

    /**
     * A rank's own report of a checkpoint ({@code CHECKPOINT} event: {@code {checkpoint, bytes, ms,
     * stored}}): keeps the slowest rank's time from reaching the checkpoint to its part being stored
     * ({@code rankMs}), why a part was not stored, and where the run was: the highest {@code <progress>}
     * value a rank had reported when it took the checkpoint ({@code progress {value, total}}; for a loop
     * that reports its iteration, the checkpoint's iteration).
     */
    synchronized void rankReport(int rank, Object value, String message, double progressValue, double progressTotal) {
        if (!(value instanceof Map<?, ?> v) || !(v.get("checkpoint") instanceof Number n)) {
            return;
        }
        Map<String, Object> m = checkpoints.get(n.longValue());
        if (m == null) {
            return; // the part never arrived (or the checkpoint was dropped from the listing): nothing to add to
        }
        if (progressTotal > 0 && (!(m.get("progress") instanceof Map<?, ?> p) || ((Number) p.get("value")).doubleValue() < progressValue)) {
            m.put("progress", Map.of("value", progressValue, "total", progressTotal));
        }
        if (v.get("ms") instanceof Number ms) {
            m.merge("rankMs", ms.longValue(), (a, b) -> Math.max(((Number) a).longValue(), ((Number) b).longValue()));
        }
        if (Boolean.FALSE.equals(v.get("stored"))) {
            m.put("notStored", "rank " + rank + ": " + (message == null ? "not stored" : message));
        }
    }

    /** Marks a checkpoint as never to be used, with why. */
    synchronized void unusable(long seq, String why) {
        Map<String, Object> m = checkpoints.get(seq);
        if (m != null) {
            m.put("unusable", why);
        }
    }

    /**
     * Takes back what a stored run detail says of the history ({@link #toJson}: restarts allowed and used, the
     * attempt log, checkpoints) and the outputs its ranks had, which a resume from a checkpoint carries over: a
     * run an engine re-attaches to or resumes after a restart goes on with its own history, not a new one.
     */
    synchronized void restore(com.fasterxml.jackson.databind.JsonNode detail) {
        var asMap = org.mpfl.engine.json.Json.MAPPER.getTypeFactory().constructMapType(LinkedHashMap.class, String.class, Object.class);
        restartsAllowed = Math.max(0, detail.at("/restarts/allowed").asInt(0));
        restartsUsed = Math.max(0, detail.at("/restarts/used").asInt(0));
        log.clear();
        detail.path("attemptLog").forEach(e -> log.add(org.mpfl.engine.json.Json.MAPPER.convertValue(e, asMap)));
        checkpoints.clear();
        detail.path("checkpoints").forEach(c -> {
            Map<String, Object> m = org.mpfl.engine.json.Json.MAPPER.convertValue(c, asMap);
            if (m.get("seq") instanceof Number n) {
                checkpoints.put(n.longValue(), m);
            }
        });
        checkpointsTaken = detail.path("checkpointsTaken").asInt(0);
        resumedFrom = log.isEmpty() || !(log.get(log.size() - 1).get("resumedFrom") instanceof Number n) ? null : n.longValue();
        carried.clear();
        progressReporters.clear();
        detail.path("ranks").forEach(r -> {
            Map<String, Object> outputs = org.mpfl.engine.json.Json.MAPPER.convertValue(r.path("outputs"), asMap);
            if (outputs != null && !outputs.isEmpty()) {
                carried.put(r.path("rank").asInt(), new LinkedHashMap<>(outputs));
            }
            if (r.at("/progress/total").asDouble(0) > 0) {
                progressReporters.add(r.path("rank").asInt());
            }
        });
    }

    synchronized void toJson(Map<String, Object> m) {
        Map<String, Object> restarts = new LinkedHashMap<>();
        restarts.put("allowed", restartsAllowed);
        restarts.put("used", restartsUsed);
        m.put("restarts", restarts);
        m.put("attemptLog", log.stream().map(LinkedHashMap::new).toList());
        m.put("checkpoints", checkpoints.values().stream().map(LinkedHashMap::new).toList());
        m.put("checkpointsTaken", checkpointsTaken);
    }
}
