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

    /** A pending send in a WAIT message: "send to 3 tag 0 comm world", "ssend to 7 (rank 3 of grid) tag 2 comm grid". */
    private static final Pattern SEND = Pattern.compile("\\bs?send to (\\d+)(?: \\(rank \\d+ of [^)]+\\))? tag (\\d+) comm ([^\\s;)]+)");
    /** The sending half of a sendrecv: "… comm grid (sendrecv, sending to 3 tag 2)". */
    private static final Pattern SENDRECV_SEND = Pattern.compile(
            "comm ([^\\s;)]+) \\(sendrecv, sending to (\\d+)(?: \\(rank \\d+ of [^)]+\\))? tag (\\d+)\\)");
    /** A pending receive: "receive from 1 tag 2 comm grid", "receive from any rank tag any comm world". */
    private static final Pattern RECEIVE = Pattern.compile(
            "\\breceive from (?:any rank|(\\d+)(?: \\(rank \\d+ of [^)]+\\))?) tag (any|\\d+) comm ([^\\s;)]+)");

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

    /**
     * One rank as the detector sees it.
     *
     * @param traffic what the rank counted per peer, to tell a message in transit from a wait for nothing
     */
    public record Wait(int rank, boolean live, boolean blocked, String waitingFor, String location, long messagesSent,
                       Traffic traffic) {
        /** A rank whose traffic is not counted (an in-process run: its messages never leave the JVM). */
        public Wait(int rank, boolean live, boolean blocked, String waitingFor, String location, long messagesSent) {
            this(rank, live, blocked, waitingFor, location, messagesSent, Traffic.NONE);
        }
    }

    /**
     * A rank's counts per peer world rank, from its {@code status} answers: point-to-point messages it
     * queued for each peer ({@code dataSentTo}) and that arrived from each ({@code dataFrom}), receipts of
     * synchronous sends it sent to each peer ({@code receiptsSentTo}, having matched their message) and
     * received from each ({@code receiptsFrom}).
     */
    public record Traffic(Map<Integer, Long> dataSentTo, Map<Integer, Long> dataFrom, Map<Integer, Long> receiptsSentTo,
                          Map<Integer, Long> receiptsFrom) {
        public static final Traffic NONE = new Traffic(Map.of(), Map.of(), Map.of(), Map.of());

        private static long of(Map<Integer, Long> counts, int peer) {
            return counts.getOrDefault(peer, 0L);
        }
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
            fp.append(w.rank()).append(w.live()).append(w.waitingFor()).append(w.location()).append(w.messagesSent())
                    .append(w.traffic()).append(';');
        }
        if (!fp.toString().equals(fingerprint)) {
            fingerprint = fp.toString();
            stableSinceMs = nowMs;
            return Optional.empty();
        }
        if (nowMs - stableSinceMs < graceMs) {
            return Optional.empty();
        }
        // parsed only once the ranks have stood still for the grace, not on every tick
        Optional<String> inTransit = messageInTransit(ranks);
        if (inTransit.isPresent() && nowMs - stableSinceMs < TRANSIT_GRACE_MS) {
            return Optional.empty();
        }
        return Optional.of(inTransit.isPresent() ? stalled(ranks, inTransit.get()) : report(ranks));
    }

    /**
     * Some live rank is blocked sending to a rank that is blocked in a receive this send matches (same
     * communicator, its source or any, its tag or any): the message is on its way, which is no deadlock.
     * A matched send completes unless the transport is stuck, so the transport's own bounds (a sender's
     * 30 s delivery deadline, the binary channel's watchdog) are given time to deliver it or fail the rank
     * saying why — a connection re-established after a relay restart took more than the 5 s grace under
     * load. A receiver that answers BUSY for ever has no such bound: after this long the run fails as
     * stalled, naming the message.
     */
    static final long TRANSIT_GRACE_MS = 60_000;

    /**
     * The first message on its way to a live rank ({@link #TRANSIT_GRACE_MS}):
     * <ul>
     *   <li>a send blocked on a receiver blocked in a receive it matches: {@code rank 1's message to rank 3 (tag 2 comm grid)}
     *       (had the send completed, the receive would have taken it);</li>
     *   <li>a message its sender queued (and may have left behind, a standard send completes at once) that has not
     *       arrived: the sender's {@code dataSentTo} exceeds the receiver's {@code dataFrom}, e.g. {@code rank 3's message
     *       to rank 1 (sent 12, arrived 11)} — a first message across sites waits for its connection through the relay;</li>
     *   <li>the receipt of a synchronous send the receiver has matched and moved on from: the receiver has sent more
     *       receipts to the sender than the sender has received, {@code rank 3's receipt for rank 1's message (tag 2 comm grid)}.</li>
     * </ul>
     * The counts come from separate {@code status} answers; something that arrived between the two reads looks in
     * transit until the next poll, which only delays a report, and a sender's count read too early only lets a
     * deadlock be reported.
     */
    static Optional<String> messageInTransit(List<Wait> ranks) {
        Map<Integer, Wait> byRank = new HashMap<>();
        ranks.forEach(w -> byRank.put(w.rank(), w));
        List<Wait> live = ranks.stream().filter(Wait::live).toList();
        for (Wait sender : live) {
            for (PendingSend send : pendingSends(sender.waitingFor())) {
                Wait receiver = byRank.get(send.to());
                if (receiver == null || !receiver.live()) {
                    continue;
                }
                String what = " (tag " + send.tag() + " comm " + send.comm() + ")";
                if (receiver.blocked() && receives(receiver.waitingFor(), sender.rank(), send)) {
                    return Optional.of("rank " + sender.rank() + "'s message to rank " + send.to() + what);
                }
                if (Traffic.of(receiver.traffic().receiptsSentTo(), sender.rank())
                        > Traffic.of(sender.traffic().receiptsFrom(), receiver.rank())) {
                    return Optional.of("rank " + receiver.rank() + "'s receipt for rank " + sender.rank() + "'s message" + what);
                }
            }
        }
        for (Wait receiver : live) {
            for (Wait sender : ranks) {
                long sent = Traffic.of(sender.traffic().dataSentTo(), receiver.rank());
                long arrived = Traffic.of(receiver.traffic().dataFrom(), sender.rank());
                if (sent > arrived) {
                    return Optional.of("rank " + sender.rank() + "'s message to rank " + receiver.rank() + " (sent " + sent
                            + ", arrived " + arrived + ")");
                }
            }
        }
        return Optional.empty();
    }

    /** A run whose only movement left is a message that has not arrived for {@link #TRANSIT_GRACE_MS}. */
    private static RunError stalled(List<Wait> ranks, String message) {
        Waits waits = waits(ranks);
        return new RunError(waits.rank(), waits.location(), "stalled: every live rank is blocked and " + message
                + " has not arrived within " + TRANSIT_GRACE_MS / 1000 + " s; the ranks wait: " + waits.text());
    }

    private record PendingSend(int to, int tag, String comm) {
    }

    private static List<PendingSend> pendingSends(String waitMessage) {
        List<PendingSend> sends = new ArrayList<>();
        if (waitMessage == null) {
            return sends;
        }
        Matcher m = SEND.matcher(waitMessage);
        while (m.find()) {
            sends.add(new PendingSend(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), m.group(3)));
        }
        m = SENDRECV_SEND.matcher(waitMessage);
        while (m.find()) {
            sends.add(new PendingSend(Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3)), m.group(1)));
        }
        return sends;
    }

    /** Whether a WAIT message has a receive that {@code send} from world rank {@code from} matches. */
    private static boolean receives(String waitMessage, int from, PendingSend send) {
        if (waitMessage == null) {
            return false;
        }
        Matcher m = RECEIVE.matcher(waitMessage);
        while (m.find()) {
            boolean source = m.group(1) == null || Integer.parseInt(m.group(1)) == from;
            boolean tag = m.group(2).equals("any") || Integer.parseInt(m.group(2)) == send.tag();
            if (source && tag && m.group(3).equals(send.comm())) {
                return true;
            }
        }
        return false;
    }

    /** Builds the report: the first wait-for cycle if there is one, else the list of waits. */
    static RunError report(List<Wait> ranks) {
        Waits waits = waits(ranks);
        return new RunError(waits.rank(), waits.location(), "deadlock: "
                + (waits.cycle() ? "" : "every live rank is blocked and no message is moving: ") + waits.text());
    }

    /**
     * What the live ranks wait for: {@code text} is a wait-for cycle printed from its first member
     * ({@code rank 0 waits for rank 1 at … > rank 1 waits for rank 0 at …}) when there is one, else every live
     * rank's wait; {@code rank} and {@code location} are the first rank named.
     */
    private record Waits(Integer rank, String location, String text, boolean cycle) {
    }

    private static Waits waits(List<Wait> ranks) {
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
                List<String> parts = new ArrayList<>();
                Wait w = cur;
                do {
                    Integer next = waitedRank(w.waitingFor());
                    parts.add("rank " + w.rank() + " waits for rank " + next + at(w));
                    w = byRank.get(next);
                } while (w.rank() != cur.rank());
                return new Waits(cur.rank(), cur.location(), String.join(" > ", parts), true);
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
        return new Waits(first == null ? null : first.rank(), first == null ? null : first.location(),
                String.join(" > ", parts), false);
    }

    private static String at(Wait w) {
        return w.location() == null ? "" : " at " + w.location();
    }
}
