package org.mpfl.runtime.p2p;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.Endpoint;
import org.mpfl.runtime.api.Communicator;
import org.mpfl.runtime.api.DeliveryException;
import org.mpfl.runtime.api.ReceiveTimeoutException;
import org.mpfl.runtime.transport.Envelope;
import org.mpfl.runtime.transport.Transport;
import org.mpfl.runtime.transport.TransportException;
import org.mpfl.runtime.transport.TransportSelector;
import org.mpfl.runtime.transport.local.LocalTransport;

/** Sender retries: failures before and after delivery (a lost acknowledgement), and the delivery deadline. */
class RetryAndDeadlineTest {
    private RankRegistry registry;

    /** Wraps the local transport; the first {@code failures} stores fail, before or after handing over. */
    private static final class FlakyTransport implements Transport {
        final Transport inner;
        final int failures;
        final boolean afterDelivery;
        final AtomicInteger calls = new AtomicInteger();

        FlakyTransport(Transport inner, int failures, boolean afterDelivery) {
            this.inner = inner;
            this.failures = failures;
            this.afterDelivery = afterDelivery;
        }

        @Override
        public String name() {
            return "flaky";
        }

        @Override
        public boolean reaches(Endpoint endpoint) {
            return inner.reaches(endpoint);
        }

        @Override
        public void store(Endpoint endpoint, Envelope envelope) throws TransportException {
            boolean fail = calls.incrementAndGet() <= failures;
            if (fail && !afterDelivery) {
                throw new TransportException("injected failure before delivery", false, null);
            }
            inner.store(endpoint, envelope);
            if (fail) {
                throw new TransportException("injected loss of the acknowledgement", false, null);
            }
        }

        @Override
        public void abort(Endpoint endpoint, String domainId, byte[] proof) throws TransportException {
            inner.abort(endpoint, domainId, proof);
        }

        @Override
        public void close() {
        }
    }

    @AfterEach
    void close() {
        if (registry != null) {
            registry.close();
        }
    }

    private RankInstance[] open(FlakyTransport[] holder, int failures, boolean afterDelivery, Duration deadline) {
        registry = new RankRegistry("h", MessagingSettings.fromSystemProperties().withDeliveryDeadline(deadline));
        FlakyTransport flaky = new FlakyTransport(new LocalTransport("h", registry), failures, afterDelivery);
        holder[0] = flaky;
        TransportSelector selector = new TransportSelector(flaky, null, null);
        String id = DomainToken.generate();
        String token = DomainToken.generate();
        List<Endpoint> eps = List.of(new Endpoint("a", null, "h"), new Endpoint("b", null, "h"));
        return new RankInstance[] {registry.open(id, 0, token, eps, selector, "auto"),
                registry.open(id, 1, token, eps, selector, "auto")};
    }

    @Test
    void failuresBeforeDeliveryAreRetriedInOrder() {
        FlakyTransport[] t = new FlakyTransport[1];
        RankInstance[] r = open(t, 3, false, Duration.ofSeconds(10));
        Communicator sender = r[0].world();
        for (int i = 0; i < 5; i++) {
            sender.send(i, 1, 0);
        }
        Communicator receiver = r[1].world();
        for (int i = 0; i < 5; i++) {
            assertEquals(i, receiver.recv(0, 0, Duration.ofSeconds(5)).value());
        }
        assertTrue(t[0].calls.get() >= 8, "calls " + t[0].calls.get());
    }

    @Test
    void aLostAcknowledgementLeadsToARetryThatIsReceivedOnce() {
        FlakyTransport[] t = new FlakyTransport[1];
        RankInstance[] r = open(t, 2, true, Duration.ofSeconds(10));
        r[0].world().send("once", 1, 0);
        r[0].world().send("twice?", 1, 0);
        Communicator receiver = r[1].world();
        assertEquals("once", receiver.recv(0, 0, Duration.ofSeconds(5)).value());
        assertEquals("twice?", receiver.recv(0, 0, Duration.ofSeconds(5)).value());
        assertThrows(ReceiveTimeoutException.class, () -> receiver.recv(0, 0, Duration.ofMillis(200)));
    }

    @Test
    void pastTheDeliveryDeadlineTheRankFailsWithDeliveryException() {
        FlakyTransport[] t = new FlakyTransport[1];
        RankInstance[] r = open(t, Integer.MAX_VALUE, false, Duration.ofMillis(300));
        Communicator sender = r[0].world();
        sender.send("lost", 1, 0); // returns: the message is queued for retries
        long t0 = System.nanoTime();
        DeliveryException e = assertThrows(DeliveryException.class, () -> sender.recv(1, 0, Duration.ofSeconds(10)));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        // the point: the 300 ms delivery deadline fails it, not the receive's 10 s; 8 s holds on a loaded 2-core machine
        assertTrue(ms < 8000, "failed after " + ms + " ms");
        assertTrue(e.getMessage().contains("to rank 1") && e.getMessage().contains("injected"), e.getMessage());
    }
}
