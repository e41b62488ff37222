package org.mpfl.runtime.transport.binary;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.mpfl.protocol.relay.RelayDialer;
import org.mpfl.protocol.Endpoint;
import org.mpfl.protocol.tls.TlsSettings;
import org.mpfl.runtime.transport.ProbeTimeouts;

/**
 * Which peers' binary channels answer now: the question {@link BinaryTransport#reachable} asks at
 * domain set-up, on connections of its own (never the transport's data connections). Plaintext
 * probes of peers reached directly share one selector; TLS probes, and every probe of a peer reached
 * through a relay or by a reverse connection, run one short-lived thread per peer and connect as the
 * data connections do ({@link RelayDialer}) — with or without TLS a relayed pair's probe takes the
 * relayed path its messages will take. Every probe's connection is bounded by the caller's time-out,
 * raised for an indirect peer to what its method may take, and once connected its TLS handshake and
 * HELLO by {@link ProbeTimeouts#ANSWER_MS} ({@link ProbeTimeouts}); it leaves before AUTH, so a server
 * allocates nothing for it.
 */
final class ReachabilityProbe {
    /** The TLS every probe is layered with, or {@code null}: plaintext. */
    private final TlsSettings tls;

    ReachabilityProbe(TlsSettings tls) {
        this.tls = tls;
    }

    /**
     * The probe of domain set-up: opens a fresh connection to each peer's binary address, all at
     * once, and keeps those that connect within {@code timeoutMillis} (a peer reached through a relay or
     * by a reverse connection: within {@link ProbeTimeouts#forPeer}) and then send a well-formed HELLO
     * within {@link ProbeTimeouts#ANSWER_MS}, and closes them: no AUTH, so the server allocates
     * nothing. An open connection of an earlier domain proves nothing — a firewall may have closed the
     * port since without either end noticing — so it is not consulted. A refused connect fails at once;
     * a silently dropped one (firewall) costs the connection's bound, a port that takes the connection
     * but never says HELLO both bounds, once per domain.
     */
    Set<Endpoint> reachable(Collection<Endpoint> peers, long timeoutMillis) {
        return reachable(null, peers, timeoutMillis);
    }

    /**
     * As {@link #reachable(Collection, long)} for domain {@code domainId}'s set-up ({@code null}: any domain
     * of this host with a rank there): a probe through a relay, or over a reverse connection, is admitted as
     * that domain — proven with its token, as the domain's own connections will be, not with another
     * domain's (run's) that happens to reach the same address.
     */
    Set<Endpoint> reachable(String domainId, Collection<Endpoint> peers, long timeoutMillis) {
        List<Endpoint> selected = new ArrayList<>();
        List<Endpoint> dialled = new ArrayList<>();
        for (Endpoint peer : peers) {
            (tls == null && ProbeTimeouts.direct(peer) ? selected : dialled).add(peer);
        }
        if (dialled.isEmpty()) {
            return reachableSelected(selected, timeoutMillis);
        }
        if (selected.isEmpty()) {
            return reachableDialled(domainId, dialled, timeoutMillis);
        }
        // both kinds at once: the direct peers' answers do not wait for a relayed peer's longer bound
        Set<Endpoint> viaDialer = java.util.concurrent.ConcurrentHashMap.newKeySet();
        Thread others = new Thread(() -> viaDialer.addAll(reachableDialled(domainId, dialled, timeoutMillis)), "mpfl-binary-probes");
        others.setDaemon(true);
        others.start();
        Set<Endpoint> ok = reachableSelected(selected, timeoutMillis);
        try {
            others.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        ok.addAll(viaDialer);
        return ok;
    }

    /**
     * Plaintext probes of peers reached directly, on one selector: each connected within
     * {@code timeoutMillis}, then answered within {@link ProbeTimeouts#ANSWER_MS}.
     */
    private static Set<Endpoint> reachableSelected(Collection<Endpoint> peers, long timeoutMillis) {
        Set<Endpoint> ok = new HashSet<>();
        if (peers.isEmpty()) {
            return ok;
        }
        long connectBy = System.nanoTime() + timeoutMillis * 1_000_000L;
        try (Selector sel = Selector.open()) {
            List<SocketChannel> open = new ArrayList<>();
            int outstanding = 0;
            try {
                for (Endpoint peer : peers) {
                    InetSocketAddress target = socketAddress(peer.binaryAddress());
                    if (target == null) {
                        continue;
                    }
                    SocketChannel ch = SocketChannel.open();
                    open.add(ch);
                    ch.configureBlocking(false);
                    ByteBuffer hello = ByteBuffer.allocate(BinaryProtocol.HELLO_BYTES);
                    try {
                        if (ch.connect(target)) {
                            ch.register(sel, SelectionKey.OP_READ, new Probe(peer, hello, answerBy()));
                        } else {
                            ch.register(sel, SelectionKey.OP_CONNECT, new Probe(peer, hello, connectBy));
                        }
                        outstanding++;
                    } catch (IOException refused) {
                        ch.close();
                    }
                }
                // cancelled keys stay in keys() until the next select: count the probes still running
                while (outstanding > 0) {
                    long now = System.nanoTime();
                    long next = Long.MAX_VALUE;
                    for (SelectionKey k : sel.keys()) {
                        if (k.isValid()) {
                            Probe p = (Probe) k.attachment();
                            if (now - p.deadline >= 0) {
                                k.cancel(); // out of time in its step: not reachable
                                outstanding--;
                            } else {
                                next = Math.min(next, (p.deadline - now) / 1_000_000L + 1);
                            }
                        }
                    }
                    if (outstanding <= 0 || next == Long.MAX_VALUE) {
                        break; // nothing left with a deadline: never a select without a bound
                    }
                    sel.select(next);
                    for (SelectionKey k : sel.selectedKeys()) {
                        if (stepProbe(k, ok)) {
                            outstanding--;
                        }
                    }
                    sel.selectedKeys().clear();
                }
            } finally {
                for (SocketChannel ch : open) {
                    try {
                        ch.close();
                    } catch (IOException ignored) {
                        // a probe: nothing to keep
                    }
                }
            }
        } catch (IOException e) {
            // no selector: nothing could be probed, so nothing is known to answer
        }
        return ok;
    }

    /**
     * Probes that connect through {@link RelayDialer} (directly, spliced through a relay, or by a
     * reverse connection — as the data connections will), with TLS when the transport uses it: the
     * same question (does a well-formed HELLO arrive in time?), asked after a TLS handshake that
     * verifies the peer's certificate — a port that answers TLS with the wrong certificate is not
     * reachable. One short-lived thread per peer, all at once; each one's connect is bounded by the
     * peer's deadline, its handshake and read by {@link ProbeTimeouts#ANSWER_MS} after that
     * ({@link ProbeTimeouts}), and this waits for them no longer.
     */
    private Set<Endpoint> reachableDialled(String domainId, Collection<Endpoint> peers, long timeoutMillis) {
        ConcurrentLinkedQueue<Endpoint> ok = new ConcurrentLinkedQueue<>();
        List<Thread> probes = new ArrayList<>();
        long last = System.nanoTime();
        for (Endpoint peer : peers) {
            String address = peer.binaryAddress();
            InetSocketAddress target = socketAddress(address);
            if (target == null) {
                continue;
            }
            long connectBy = System.nanoTime() + ProbeTimeouts.forPeer(peer, timeoutMillis) * 1_000_000L;
            last = Math.max(last, connectBy + ProbeTimeouts.ANSWER_MS * 1_000_000L);
            Thread t = new Thread(() -> {
                if (probeDialled(domainId, peer, address.substring(0, address.lastIndexOf(':')), target, connectBy)) {
                    ok.add(peer);
                }
            }, "mpfl-binary-probe-" + address);
            t.setDaemon(true);
            t.start();
            probes.add(t);
        }
        try {
            for (Thread t : probes) {
                long left = (last - System.nanoTime()) / 1_000_000L;
                if (left > 0) {
                    t.join(left);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return new HashSet<>(ok);
    }

    /**
     * One probe through the dialer: connected before {@code connectBy}, then TLS handshake (if any) and
     * a valid HELLO within {@link ProbeTimeouts#ANSWER_MS}; then leave.
     */
    private boolean probeDialled(String domainId, Endpoint peer, String host, InetSocketAddress target, long connectBy) {
        // the peer's endpoint goes along: the domain may still be opening here, its registry not naming the peer yet
        try (Socket s = RelayDialer.shared().connect(domainId, peer, host, target.getPort(), remainingMillis(connectBy)).socket()) {
            long deadline = answerBy();
            s.setSoTimeout(remainingMillis(deadline));
            if (tls == null) {
                BinaryProtocol.helloChallenge(s.getInputStream().readNBytes(BinaryProtocol.HELLO_BYTES));
                return true;
            }
            try (Socket ssl = tls.clientSocket(s, host, target.getPort())) {
                ssl.setSoTimeout(remainingMillis(deadline));
                BinaryProtocol.helloChallenge(ssl.getInputStream().readNBytes(BinaryProtocol.HELLO_BYTES));
                return true;
            }
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** Milliseconds left until {@code deadline} ({@link System#nanoTime()}), at least 1 (0 means no time-out). */
    private static int remainingMillis(long deadline) throws SocketTimeoutException {
        long left = (deadline - System.nanoTime()) / 1_000_000L;
        if (left <= 0) {
            throw new SocketTimeoutException("probe deadline passed");
        }
        return (int) Math.min(Integer.MAX_VALUE, left);
    }

    /** When a probe connected now must have its HELLO ({@link System#nanoTime()}). */
    private static long answerBy() {
        return System.nanoTime() + ProbeTimeouts.ANSWER_MS * 1_000_000L;
    }

    /** One probe in flight: whose address, the HELLO read so far, and the deadline of its current step. */
    private static final class Probe {
        final Endpoint peer;
        final ByteBuffer hello;
        long deadline;

        Probe(Endpoint peer, ByteBuffer hello, long deadline) {
            this.peer = peer;
            this.hello = hello;
            this.deadline = deadline;
        }
    }

    /**
     * Advances one probe: finishes its connect, or reads HELLO bytes (a complete, valid one:
     * reachable). Returns whether the probe has ended (answered or failed).
     */
    private static boolean stepProbe(SelectionKey k, Set<Endpoint> ok) {
        SocketChannel ch = (SocketChannel) k.channel();
        Probe p = (Probe) k.attachment();
        try {
            if (k.isConnectable()) {
                if (ch.finishConnect()) {
                    k.interestOps(SelectionKey.OP_READ);
                    p.deadline = answerBy();
                }
                return false;
            }
            if (ch.read(p.hello) < 0) {
                throw new IOException("closed before HELLO");
            }
            if (!p.hello.hasRemaining()) {
                k.cancel();
                BinaryProtocol.helloChallenge(p.hello.array()); // throws (probe failed) unless a well-formed HELLO
                ok.add(p.peer);
                ch.close();
                return true;
            }
            return false;
        } catch (IOException e) {
            k.cancel();
            try {
                ch.close();
            } catch (IOException ignored) {
                // failed probe
            }
            return true;
        }
    }

    /** {@code host:port} as a socket address, or {@code null} if it is not one. */
    private static InetSocketAddress socketAddress(String address) {
        if (address == null) {
            return null;
        }
        int colon = address.lastIndexOf(':');
        if (colon < 0) {
            return null;
        }
        try {
            InetSocketAddress a = new InetSocketAddress(address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)));
            return a.isUnresolved() ? null : a;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
