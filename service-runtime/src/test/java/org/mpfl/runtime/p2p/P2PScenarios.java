package org.mpfl.runtime.p2p;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.mpfl.runtime.api.Communicator;
import org.mpfl.runtime.api.DomainAbortedException;
import org.mpfl.runtime.api.Message;
import org.mpfl.runtime.api.RankContext;
import org.mpfl.runtime.api.RankProgram;
import org.mpfl.runtime.api.ReceiveTimeoutException;
import org.mpfl.runtime.api.Request;
import org.mpfl.testing.attack.ObjectReceipt;
import org.mpfl.testing.attack.gadget.TripwireMarks;

/**
 * The rank programs of the messaging suite, by name (so another process can run them). Parameters
 * come as strings in {@code RankContext.params()}; a failed check throws, which fails the rank.
 */
public final class P2PScenarios {
    private P2PScenarios() {
    }

    public static RankProgram named(String name) {
        return switch (name) {
            case "fifo" -> P2PScenarios::fifo;
            case "wildcards" -> P2PScenarios::wildcards;
            case "crosstalk" -> P2PScenarios::crosstalk;
            case "big" -> P2PScenarios::big;
            case "ssend" -> P2PScenarios::ssend;
            case "timeout" -> P2PScenarios::timeout;
            case "abortWait" -> P2PScenarios::abortWait;
            case "sendrecvRing" -> P2PScenarios::sendrecvRing;
            case "nonblocking" -> P2PScenarios::nonblocking;
            case "objects" -> P2PScenarios::objects;
            case "objectVictim" -> P2PScenarios::objectVictim;
            case "collect" -> P2PScenarios::collect;
            default -> throw new IllegalArgumentException("unknown scenario " + name);
        };
    }

    private static int intParam(RankContext ctx, String name, int dflt) {
        Object v = ctx.params().get(name);
        return v == null ? dflt : Integer.parseInt(v.toString());
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what);
        }
    }

    /** Ranks 1..p-1 send n numbered messages each (mixing send and isend) to rank 0, which checks per-sender order. */
    static void fifo(RankContext ctx) {
        Communicator w = ctx.world();
        int n = intParam(ctx, "n", 300);
        if (w.rank() == 0) {
            int[] next = new int[w.size()];
            for (int i = 0; i < n * (w.size() - 1); i++) {
                Message m = w.recv(Communicator.ANY_SOURCE, 7, Duration.ofSeconds(20));
                int[] v = (int[]) m.value();
                check(v[0] == m.source(), "payload names sender " + v[0] + " but came from " + m.source());
                check(v[1] == next[m.source()], "from rank " + m.source() + " expected #" + next[m.source()]
                        + " got #" + v[1]);
                next[m.source()]++;
            }
            ctx.output("received", n * (w.size() - 1));
        } else {
            List<Request> pending = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int[] v = {w.rank(), i};
                if (i % 3 == 2) {
                    pending.add(w.isend(v, 0, 7));
                } else {
                    w.send(v, 0, 7);
                }
            }
            Request.awaitAll(pending.toArray(new Request[0]));
        }
    }

    static void wildcards(RankContext ctx) {
        Communicator w = ctx.world();
        switch (w.rank()) {
            case 0 -> {
                Message b = w.recv(1, 3, Duration.ofSeconds(10));
                check(b.source() == 1 && b.tag() == 3 && "b".equals(b.value()), "recv(1,3) got " + b);
                Message c = w.recv(Communicator.ANY_SOURCE, 9, Duration.ofSeconds(10));
                check(c.source() == 2 && c.tag() == 9 && Integer.valueOf(42).equals(c.value()), "recv(ANY,9) got " + c);
                Message a = w.recv(Communicator.ANY_SOURCE, Communicator.ANY_TAG, Duration.ofSeconds(10));
                check(a.source() == 1 && a.tag() == 5 && "a".equals(a.value()), "recv(ANY,ANY) got " + a);
                Message none = w.recv(Communicator.PROC_NULL, 0);
                check(none.source() == Communicator.PROC_NULL && none.value() == null, "PROC_NULL recv got " + none);
                w.send("nothing", Communicator.PROC_NULL, 0);
                ctx.output("ok", true);
            }
            case 1 -> {
                w.send("a", 0, 5);
                w.send("b", 0, 3);
            }
            default -> w.send(42, 0, 9);
        }
    }

    /** Rank 1 sends its domain ID many times; rank 0 must only ever see its own domain's. */
    static void crosstalk(RankContext ctx) {
        Communicator w = ctx.world();
        int n = intParam(ctx, "n", 200);
        if (w.rank() == 1) {
            for (int i = 0; i < n; i++) {
                w.send(ctx.domainId() + "#" + i, 0, 1);
            }
        } else {
            for (int i = 0; i < n; i++) {
                Object v = w.recv(1, 1, Duration.ofSeconds(20)).value();
                check((ctx.domainId() + "#" + i).equals(v), "domain " + ctx.domainId() + " received " + v);
            }
            ctx.output("received", n);
        }
    }

    /** A round trip of one large double[] (default 8 Mi doubles = 64 MB). */
    static void big(RankContext ctx) {
        Communicator w = ctx.world();
        int n = intParam(ctx, "doubles", 8 << 20);
        if (w.rank() == 0) {
            double[] a = new double[n];
            for (int i = 0; i < n; i++) {
                a[i] = i * 0.5;
            }
            long t0 = System.nanoTime();
            w.send(a, 1, 0);
            a = null;
            double[] b = (double[]) w.recv(1, 0, Duration.ofSeconds(60)).value();
            ctx.output("roundTripMs", (System.nanoTime() - t0) / 1_000_000);
            check(b.length == n, "length " + b.length);
            for (int i = 0; i < n; i += 997) {
                check(b[i] == i * 0.5 + 1, "element " + i + " is " + b[i]);
            }
            check(b[n - 1] == (n - 1) * 0.5 + 1, "last element");
            ctx.output("ok", true);
        } else {
            double[] a = (double[]) w.recv(0, 0, Duration.ofSeconds(60)).value();
            for (int i = 0; i < a.length; i++) {
                a[i] += 1;
            }
            w.send(a, 0, 0);
        }
    }

    /** Standard send returns at once although the receiver is busy; ssend returns only after the match. */
    static void ssend(RankContext ctx) throws InterruptedException {
        Communicator w = ctx.world();
        if (w.rank() == 0) {
            long t0 = System.nanoTime();
            w.send(new double[100], 1, 3);
            ctx.output("sendMs", (System.nanoTime() - t0) / 1_000_000);
            t0 = System.nanoTime();
            w.ssend("sync", 1, 4);
            long ssendDone = System.currentTimeMillis();
            ctx.output("ssendMs", (System.nanoTime() - t0) / 1_000_000);
            ctx.output("ssendDoneAtMs", ssendDone);
        } else {
            Thread.sleep(500);
            long matchedAt = System.currentTimeMillis();
            Message m = w.recv(0, 4, Duration.ofSeconds(10));
            check("sync".equals(m.value()), "ssend value " + m.value());
            ctx.output("matchedAtMs", matchedAt);
            w.recv(0, 3, Duration.ofSeconds(10));
        }
    }

    static void timeout(RankContext ctx) {
        Communicator w = ctx.world();
        if (w.rank() == 0) {
            long t0 = System.nanoTime();
            try {
                w.recv(1, 9, Duration.ofMillis(300));
                throw new AssertionError("a receive with nothing to receive returned");
            } catch (ReceiveTimeoutException e) {
                ctx.output("message", e.getMessage());
                ctx.output("waitedMs", (System.nanoTime() - t0) / 1_000_000);
            }
        }
    }

    /** Both ranks block in a receive that nothing matches; the test aborts the domain. */
    static void abortWait(RankContext ctx) {
        Communicator w = ctx.world();
        try {
            w.recv(1 - w.rank(), 0, Duration.ofSeconds(30));
        } catch (DomainAbortedException e) {
            ctx.output("abortedAtMs", System.currentTimeMillis());
            throw e;
        }
    }

    /** sendrecv around a ring with messages above the eager limit: must not deadlock. */
    static void sendrecvRing(RankContext ctx) {
        Communicator w = ctx.world();
        int right = (w.rank() + 1) % w.size();
        int left = (w.rank() + w.size() - 1) % w.size();
        double[] mine = new double[40_000];
        java.util.Arrays.fill(mine, w.rank());
        for (int round = 0; round < 5; round++) {
            Message m = w.sendrecv(mine, right, round, left, round);
            double[] got = (double[]) m.value();
            check(m.source() == left && got[0] == left && got[got.length - 1] == left, "round " + round + " got from " + m.source());
        }
        ctx.output("ok", true);
    }

    static void nonblocking(RankContext ctx) {
        Communicator w = ctx.world();
        int other = 1 - w.rank();
        Request r1 = w.irecv(other, 1);
        Request r2 = w.irecv(other, 2);
        Request s2 = w.isend(new long[] {w.rank(), 2}, other, 2);
        Request s1 = w.issend(new long[] {w.rank(), 1}, other, 1);
        Message[] got = Request.awaitAll(r1, r2, s1, s2);
        check(((long[]) got[0].value())[1] == 1 && ((long[]) got[1].value())[1] == 2, "irecv values");
        check(got[2] == null && got[3] == null, "send requests return null");
        check(r1.test() && s1.test(), "test() after await");
        ctx.output("ok", true);
    }

    static Map<String, String> none() {
        return Map.of();
    }

    /**
     * Rank 0 sends every {@link ObjectValues#all()} value, one message each, then all of them as one
     * list; rank 1 checks each against its own copy, exactly.
     */
    static void objects(RankContext ctx) {
        Communicator w = ctx.world();
        List<Object> values = ObjectValues.all();
        if (w.rank() == 0) {
            for (Object v : values) {
                w.send(v, 1, 11);
            }
            w.send(values, 1, 12);
        } else if (w.rank() == 1) {
            for (int i = 0; i < values.size(); i++) {
                Object got = w.recv(0, 11, Duration.ofSeconds(20)).value();
                String d = ObjectValues.difference(values.get(i), got);
                check(d == null, "value " + i + " changed on the way: " + d);
            }
            String d = ObjectValues.difference(values, w.recv(0, 12, Duration.ofSeconds(20)).value());
            check(d == null, "the list of all values changed on the way: " + d);
            ctx.output("ok", true);
        }
    }

    /**
     * Rank 1 receives {@code n} messages with tag 5 that an attacker holding the domain token sends in
     * rank 0's name (rank 0 itself sends nothing), and records for each what it got: {@code ok:<class>}
     * or {@code refused:<message>}; then which of {@link org.mpfl.testing.attack.gadget.Tripwire}'s side
     * effects happened in its JVM ({@code marks}).
     */
    static void objectVictim(RankContext ctx) {
        Communicator w = ctx.world();
        if (w.rank() != 1) {
            return;
        }
        int n = intParam(ctx, "n", 1);
        for (int i = 0; i < n; i++) {
            ctx.output("m" + i, ObjectReceipt.of(() -> w.recv(0, 5, Duration.ofSeconds(20)).value()));
        }
        ctx.output("marks", TripwireMarks.marks());
    }

    /**
     * Rank 1 receives {@code n} messages from rank 0 with tag 5 (stored there by a test from outside)
     * and outputs the first element of each, in the order received, as {@code got} ("3,1,..."); the
     * other ranks end at once. For the transport tests that inject stores themselves.
     */
    static void collect(RankContext ctx) {
        Communicator w = ctx.world();
        if (w.rank() != 1) {
            return;
        }
        int n = intParam(ctx, "n", 1);
        StringBuilder got = new StringBuilder();
        for (int i = 0; i < n; i++) {
            double[] v = (double[]) w.recv(0, 5, Duration.ofSeconds(30)).value();
            got.append(i == 0 ? "" : ",").append((long) v[0]).append(':').append(v.length);
        }
        ctx.output("got", got.toString());
    }
}
