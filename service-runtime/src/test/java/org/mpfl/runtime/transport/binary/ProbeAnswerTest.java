package org.mpfl.runtime.transport.binary;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mpfl.protocol.Endpoint;
import org.mpfl.protocol.tls.TlsSettings;
import org.mpfl.runtime.transport.DomainTransports;
import org.mpfl.runtime.transport.ProbeTimeouts;

/**
 * The set-up probe's two bounds, in plaintext (one selector): a peer's port must take the connection
 * within the connection bound ({@link DomainTransports#PROBE_TIMEOUT_MS}), and then has
 * {@link ProbeTimeouts#ANSWER_MS} for its HELLO — so a peer whose answer is slowed past the connection
 * bound, as on a loaded machine, still gets the binary channel, and a port that takes connections but
 * never answers is given up within both bounds. (Over TLS: {@link ProbeAnswerTlsTest}.)
 */
@Timeout(60)
class ProbeAnswerTest {
    /** Past the connection bound, well within the answer bound after it. */
    static final long LATE_MS = DomainTransports.PROBE_TIMEOUT_MS + 500;

    @Test
    void aHelloLaterThanTheConnectionBoundButWithinTheAnswerBoundIsReachable() throws Exception {
        assertTrue(LATE_MS < ProbeTimeouts.ANSWER_MS, "the fixture's delay must fall inside the answer bound");
        try (HelloServer late = new HelloServer(LATE_MS, TlsSettings.NONE); HelloServer prompt = new HelloServer()) {
            Endpoint slow = new Endpoint("stub://late/0", late.address(), "late");
            Endpoint fast = new Endpoint("stub://prompt/1", prompt.address(), "prompt");
            long t0 = System.nanoTime();
            Set<Endpoint> answered = new ReachabilityProbe(null).reachable(List.of(slow, fast), DomainTransports.PROBE_TIMEOUT_MS);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertEquals(Set.of(slow, fast), answered, "both peers said HELLO, one " + LATE_MS + " ms after connecting");
            assertTrue(ms >= LATE_MS, "the probe waited for the late HELLO (" + ms + " ms)");
        }
    }

    @Test
    void aPortThatTakesConnectionsButNeverAnswersIsGivenUpWithinBothBounds() throws Exception {
        // filled by the accepting thread, closed by this one
        Queue<Socket> held = new ConcurrentLinkedQueue<>();
        try (ServerSocket silent = new ServerSocket(0, 10, InetAddress.getLoopbackAddress());
             HelloServer prompt = new HelloServer()) {
            Thread holder = new Thread(() -> {
                try {
                    while (true) {
                        held.add(silent.accept());
                    }
                } catch (IOException closed) {
                    // the test ended
                }
            });
            holder.setDaemon(true);
            holder.start();
            Endpoint mute = new Endpoint("stub://mute/0", "127.0.0.1:" + silent.getLocalPort(), "mute");
            Endpoint fast = new Endpoint("stub://prompt/1", prompt.address(), "prompt");
            long t0 = System.nanoTime();
            Set<Endpoint> answered = new ReachabilityProbe(null).reachable(List.of(mute, fast), DomainTransports.PROBE_TIMEOUT_MS);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertEquals(Set.of(fast), answered);
            long bound = ProbeTimeouts.total(mute, DomainTransports.PROBE_TIMEOUT_MS);
            assertTrue(ms >= ProbeTimeouts.ANSWER_MS, "the silent port had its answer bound (" + ms + " ms)");
            // the point is that the wait ends: 10 s beyond both bounds holds on a loaded 2-core machine
            assertTrue(ms < bound + 10_000, "the probe of a silent port ended after " + ms + " ms (bounds " + bound + " ms)");
        } finally {
            for (Socket s : held) {
                s.close();
            }
        }
    }
}
