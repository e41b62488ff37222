package org.mpfl.engine.run;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds runtime deadlocks: every live rank is blocked in a wait, and nothing has moved (no new
 * message counted, no wait changed) for a grace period. The report follows the wait-for edges
 * ("receive from 3" → rank 3) and names the cycle with source locations, e.g.
 * {@code rank 0 waits for rank 1 at ring.mpfl.xml:9:9 > rank 1 waits for rank 0 at ring.mpfl.xml:12:9}.
 *
 * <p>One detector belongs to one run; {@link #check} is called periodically with the run's lock held.
 */
public final class DeadlockDetector {
    /** "receive from 3", "recv from rank 3", "source 3", "ssend to 3", "waits for 3". */
    private static final Pattern WAITED = Pattern.compile(
            "(?:\\bfrom(?:\\s+rank)?|\\bsource|\\bto(?:\\s+rank)?|\\bfor(?:\\s+rank)?|\\broot)\\s+(\\d+)\\b");

    private String fingerprint;
    private long stableSinceMs;

    /** The rank a WAIT message names as the one it waits for, or {@code null} (any source, collective). */
    public static Integer waitedRank(String waitMessage) {
        if (waitMessage == null) {
            return null;
        }
        Matcher m = WAITED.matcher(waitMessage);
        return m.find() ? Integer.valueOf(m.group(1)) : null;
    }

    /** One rank as the detector sees it. */
    public record Wait(int rank, boolean live, boolean blocked, String waitingFor, String location, long messagesSent) {
    }

    /**
     * Looks at the ranks once.
     *
     * @return a deadlock report when every live rank has been blocked, with nothing moving, for at least {@code graceMs}
     */
    public Optional<RunError> check(List<Wait> ranks, long nowMs, long graceMs) {
        List<Wait> live = ranks.stream().filter(Wait::live).toList();
        boolean allBlocked = !live.isEmpty() && live.stream().allMatch(Wait::blocked);
        if (!allBlocked) {
            fingerprint = null;
            return Optional.empty();
        }
        StringBuilder fp = new StringBuilder();
        for (Wait w : ranks) {
            fp.append(w.rank()).append(w.live()).append(w.waitingFor()).append(w.location()).append(w.messagesSent()).append(';');
        }
        if (!fp.toString().equals(fingerprint)) {
            fingerprint = fp.toString();
            stableSinceMs = nowMs;
            return Optional.empty();
        }
        if (nowMs - stableSinceMs < graceMs) {
            return Optional.empty();
        }
        return Optional.of(report(ranks));
    }

    /** Builds the report: the first wait-for cycle if there is one, else the list of waits. */
    static RunError report(List<Wait> ranks) {
        Map<Integer, Wait> byRank = new HashMap<>();
        ranks.forEach(w -> byRank.put(w.rank(), w));
        for (Wait start : ranks) {
            if (!start.live()) {
                continue;
            }
            LinkedHashSet<Integer> path = new LinkedHashSet<>();
            Wait cur = start;
            while (cur != null && cur.live() && path.add(cur.rank())) {
                Integer next = waitedRank(cur.waitingFor());
                cur = next == null ? null : byRank.get(next);
            }
            if (cur != null && cur.live() && path.contains(cur.rank())) {
                // cycle found: print it from its first member
                List<String> parts = new ArrayList<>();
                Wait w = cur;
                do {
                    Integer next = waitedRank(w.waitingFor());
                    parts.add("rank " + w.rank() + " waits for rank " + next + at(w));
                    w = byRank.get(next);
                } while (w.rank() != cur.rank());
                return new RunError(cur.rank(), cur.location(), "deadlock: " + String.join(" > ", parts));
            }
        }
        List<String> parts = new ArrayList<>();
        Wait first = null;
        for (Wait w : ranks) {
            if (!w.live()) {
                continue;
            }
            first = first == null ? w : first;
            Integer next = waitedRank(w.waitingFor());
            Wait target = next == null ? null : byRank.get(next);
            String what = next == null ? "waits (" + w.waitingFor() + ")"
                    : "waits for rank " + next + (target != null && !target.live() ? " (which has finished)" : "");
            parts.add("rank " + w.rank() + " " + what + at(w));
        }
        return new RunError(first == null ? null : first.rank(), first == null ? null : first.location(),
                "deadlock: every live rank is blocked and no message is moving: " + String.join(" > ", parts));
    }

    private static String at(Wait w) {
        return w.location() == null ? "" : " at " + w.location();
    }
}
