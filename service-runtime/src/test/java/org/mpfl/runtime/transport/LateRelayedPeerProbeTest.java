package org.mpfl.runtime.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mpfl.protocol.Endpoint;
import org.mpfl.protocol.relay.RelayDialer;

/**
 * A relayed peer's binary channel answers only once its rank's domain is open at the far host; on a loaded machine
 * (SiteAdmissionTest at load ~27: the engine's run call to the far host, and the relay's check of its proof, took
 * longer than the relay's 10 s wait) the set-up probe's first dial gets no answer. The probe then asks again, within
 * ProbeTimeouts.INDIRECT_SETUP_MS, rather than sending a working pair to SOAP for the domain's life. A direct
 * peer's probe is not repeated (a dropped port costs its bound once). The binary transport here is a stand-in whose
 * probe answers from its {@code n}-th dial on; the peer is made relayed as the engine's explicit routes do.
 */
@Timeout(60)
class LateRelayedPeerProbeTest {
    static final String FAR = "127.0.0.1:47001";
    static final String NEAR = "127.0.0.1:47002";
    final ExecutorService probes = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        RelayDialer.shared().routeVia(FAR, null, null);
        probes.shutdownNow();
    }

    /** Answers a probe of a peer from its {@code answersFrom}-th dial of it on. */
    static final class LateBinary extends Named {
        final int answersFrom;
        final AtomicInteger dials = new AtomicInteger();

        LateBinary(int answersFrom) {
            super("binary", true);
            this.answersFrom = answersFrom;
        }

        @Override
        public Set<Endpoint> reachable(String domainId, Collection<Endpoint> peers, long timeoutMillis) {
            return dials.incrementAndGet() >= answersFrom ? Set.copyOf(peers) : Set.of();
        }
    }

    static class Named implements Transport {
        final String name;
        final boolean reachesAll;

        Named(String name, boolean reachesAll) {
            this.name = name;
            this.reachesAll = reachesAll;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public boolean reaches(Endpoint endpoint) {
            return reachesAll;
        }

        @Override
        public void store(Endpoint endpoint, Envelope envelope) {
        }

        @Override
        public void abort(Endpoint endpoint, String domainId, byte[] proof) {
        }

        @Override
        public void close() {
        }
    }

    @Test
    void aRelayedPeerThatAnswersOnlyOnALaterDialKeepsTheBinaryChannel() throws Exception {
        RelayDialer.shared().routeVia(FAR, "127.0.0.1:9", "test: the far host is reached through a relay");
        Endpoint far = new Endpoint("http://127.0.0.1:1/mpiws", FAR, "b", "s2");
        assertTrue(ProbeTimeouts.forPeer(far, DomainTransports.PROBE_TIMEOUT_MS) > DomainTransports.PROBE_TIMEOUT_MS, "relayed");
        LateBinary binary = new LateBinary(3);
        DomainTransports d = new DomainTransports("domain-1", new Named("local", false), binary, new Named("soap", true),
                List.of(far), "auto", probes, DomainTransports.PROBE_TIMEOUT_MS);
        assertEquals("binary", d.select(far, "auto").name(), "the third dial answered: " + binary.dials.get() + " dials");
        assertEquals(3, binary.dials.get());
    }

    @Test
    void aDirectPeerThatDoesNotAnswerGoesToSoapAfterOneDial() throws Exception {
        Endpoint near = new Endpoint("http://127.0.0.1:2/mpiws", NEAR, "c", "s1");
        LateBinary binary = new LateBinary(2);
        DomainTransports d = new DomainTransports("domain-1", new Named("local", false), binary, new Named("soap", true),
                List.of(near), "auto", probes, DomainTransports.PROBE_TIMEOUT_MS);
        assertEquals("soap", d.select(near, "auto").name());
        assertEquals(1, binary.dials.get());
    }
}
