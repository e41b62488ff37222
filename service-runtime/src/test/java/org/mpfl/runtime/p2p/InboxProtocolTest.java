package org.mpfl.runtime.p2p;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.mpfl.protocol.DomainToken;
import org.mpfl.runtime.api.Communicator;
import org.mpfl.runtime.api.ReceiveTimeoutException;
import org.mpfl.runtime.transport.Envelope;
import org.mpfl.runtime.transport.Inbox;
import org.mpfl.runtime.transport.ObjectTypes;
import org.mpfl.runtime.transport.Payload;
import org.mpfl.runtime.transport.TransportException;
import org.mpfl.runtime.transport.binary.BinaryTransport;

/**
 * The receiving side's protocol, driven by hand-made envelopes: duplicates (an injected retry with
 * the same sequence number), wrong token proofs, abort proofs, out-of-order arrival — straight into
 * the inbox and over the binary wire.
 */
class InboxProtocolTest {
    private static MessagingHost host;
    private static BinaryTransport wire;

    @BeforeAll
    static void start() {
        host = MessagingHost.start("protocol-test", "127.0.0.1", 0, "127.0.0.1",
                MessagingSettings.fromSystemProperties(), null);
        // this test's wire client belongs to every domain the test opens in the host
        wire = new BinaryTransport(5000, id -> {
            Domain d = host.registry().domain(id);
            return d == null ? null : d.proofs();
        });
    }

    @AfterAll
    static void stop() {
        wire.close();
        host.close();
    }

    private record Domain2(String id, String token, RankInstance r0, RankInstance r1) {
        Envelope envelope(int from, int to, int tag, long seq, Object value) {
            byte[] proof = new DomainToken(token).prove(id, 0, from, to, tag, seq, Envelope.Kind.DATA.ordinal());
            return new Envelope(id, 0, from, to, tag, seq, Envelope.Kind.DATA, proof, Payload.of(value));
        }

        void close() {
            r0.close();
            r1.close();
        }
    }

    private static Domain2 openDomain() {
        String id = DomainToken.generate();
        String token = DomainToken.generate();
        var eps = List.of(host.endpoint("r0"), host.endpoint("r1"));
        return new Domain2(id, token, host.registry().open(id, 0, token, eps, host.selector(), "local"),
                host.registry().open(id, 1, token, eps, host.selector(), "local"));
    }

    /** Stores one envelope over the inbox or over the binary wire; returns the outcome. */
    private static Inbox.Outcome store(String via, Envelope e) {
        if (via.equals("inbox")) {
            return host.registry().store(e);
        }
        try {
            wire.store(host.endpoint("x"), e);
            return Inbox.Outcome.STORED;
        } catch (TransportException ex) {
            return ex.isFinal() ? Inbox.Outcome.REJECTED : Inbox.Outcome.BUSY;
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"inbox", "binary"})
    void aRetriedStoreWithTheSameSequenceNumberIsReceivedOnce(String via) {
        Domain2 d = openDomain();
        try {
            Envelope e = d.envelope(1, 0, 5, 0, new int[] {1, 2, 3});
            assertEquals(Inbox.Outcome.STORED, store(via, e));
            Inbox.Outcome again = store(via, e);
            if (via.equals("inbox")) {
                assertEquals(Inbox.Outcome.DUPLICATE, again);
            }
            Communicator w = d.r0().world();
            assertArrayEquals(new int[] {1, 2, 3}, (int[]) w.recv(1, 5, Duration.ofSeconds(5)).value());
            assertThrows(ReceiveTimeoutException.class, () -> w.recv(1, 5, Duration.ofMillis(200)));
            assertEquals(0, d.r0().bufferedMessages());
        } finally {
            d.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"inbox", "binary"})
    void outOfOrderArrivalsAreDeliveredInSequence(String via) {
        Domain2 d = openDomain();
        try {
            for (long seq : new long[] {3, 1, 2, 0}) {
                assertEquals(Inbox.Outcome.STORED, store(via, d.envelope(1, 0, 8, seq, "m" + seq)));
            }
            Communicator w = d.r0().world();
            for (int i = 0; i < 4; i++) {
                assertEquals("m" + i, w.recv(1, 8, Duration.ofSeconds(5)).value());
            }
        } finally {
            d.close();
        }
    }

    @Test
    void pipelinedStoresOverTheWireAreAnsweredEachAndDeliveredOnceInSequence() {
        Domain2 d = openDomain();
        try {
            // one batch: out of order, with an injected retry in the middle
            List<Envelope> batch = List.of(d.envelope(1, 0, 8, 2, "m2"), d.envelope(1, 0, 8, 0, "m0"),
                    d.envelope(1, 0, 8, 1, "m1"), d.envelope(1, 0, 8, 1, "m1"), d.envelope(1, 0, 8, 3, "m3"));
            TransportException[] results = wire.storeAll(host.endpoint("x"), batch);
            for (TransportException r : results) {
                assertEquals(null, r);
            }
            Communicator w = d.r0().world();
            for (int i = 0; i < 4; i++) {
                assertEquals("m" + i, w.recv(1, 8, Duration.ofSeconds(5)).value());
            }
            assertThrows(ReceiveTimeoutException.class, () -> w.recv(1, 8, Duration.ofMillis(200)));
            assertEquals(0, d.r0().bufferedMessages());
        } finally {
            d.close();
        }
    }

    @Test
    void afterTheNextMessageWasRefusedItsSuccessorsAreRefusedUntilItIsAdmitted() {
        MessagingHost small = MessagingHost.start("refuse-test", "127.0.0.1", 0, "127.0.0.1",
                MessagingSettings.fromSystemProperties().withUnexpectedLimitBytes(1000), null);
        try {
            String id = DomainToken.generate();
            String token = DomainToken.generate();
            var eps = List.of(small.endpoint("r0"), small.endpoint("r1"));
            Domain2 d = new Domain2(id, token, small.registry().open(id, 0, token, eps, small.selector(), "local"),
                    small.registry().open(id, 1, token, eps, small.selector(), "local"));
            try {
                Envelope big = d.envelope(1, 0, 8, 0, new byte[2000]);
                Envelope next = d.envelope(1, 0, 8, 1, new byte[8]);
                assertEquals(Inbox.Outcome.BUSY, small.registry().store(big));
                // would fit, but could not be delivered before the refused one: refused too
                assertEquals(Inbox.Outcome.BUSY, small.registry().store(next));
                assertEquals(0, d.r0().bufferedMessages());
                var pending = d.r0().world().irecv(1, 8);
                assertEquals(Inbox.Outcome.STORED, small.registry().store(big));
                assertEquals(Inbox.Outcome.STORED, small.registry().store(next));
                assertEquals(2000, ((byte[]) pending.await().value()).length);
                assertEquals(8, ((byte[]) d.r0().world().recv(1, 8, Duration.ofSeconds(5)).value()).length);
            } finally {
                d.close();
            }
        } finally {
            small.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"inbox", "binary"})
    void aStoreWithAWrongTokenProofIsRejected(String via) {
        Domain2 d = openDomain();
        try {
            Envelope good = d.envelope(1, 0, 5, 0, "x");
            byte[] forged = new DomainToken(DomainToken.generate()).prove(d.id(), 0, 1, 0, 5, 0, Envelope.Kind.DATA.ordinal());
            Envelope bad = new Envelope(d.id(), 0, 1, 0, 5, 0, Envelope.Kind.DATA, forged, good.payload());
            assertEquals(Inbox.Outcome.REJECTED, store(via, bad));
            // a proof for another slot (other tag) does not fit this one either
            Envelope moved = new Envelope(d.id(), 0, 1, 0, 6, 0, Envelope.Kind.DATA, good.proof(), good.payload());
            assertEquals(Inbox.Outcome.REJECTED, store(via, moved));
            Envelope none = new Envelope(d.id(), 0, 1, 0, 5, 0, Envelope.Kind.DATA, null, good.payload());
            assertEquals(Inbox.Outcome.REJECTED, store(via, none));
            assertThrows(ReceiveTimeoutException.class, () -> d.r0().world().recv(1, Communicator.ANY_TAG,
                    Duration.ofMillis(100)));
        } finally {
            d.close();
        }
    }

    /** Records whether it was ever created from a message (its constructor runs when it is decoded). */
    static final class Tripwire {
        static volatile boolean created;
        private int armed = 1;

        Tripwire() {
            created = true;
        }
    }

    @Test
    void anObjectFromASenderWithoutTheTokenIsNeverDecoded() {
        Domain2 d = openDomain();
        try {
            d.r0().allowObjectTypes(ObjectTypes.of(Tripwire.class));
            Envelope good = d.envelope(1, 0, 5, 0, new Tripwire());
            Tripwire.created = false;
            byte[] forged = new DomainToken(DomainToken.generate()).prove(d.id(), 0, 1, 0, 5, 0, Envelope.Kind.DATA.ordinal());
            Envelope bad = new Envelope(d.id(), 0, 1, 0, 5, 0, Envelope.Kind.DATA, forged, good.payload());
            assertEquals(Inbox.Outcome.REJECTED, store("binary", bad));
            assertFalse(Tripwire.created);
            assertEquals(Inbox.Outcome.STORED, store("binary", good));
            assertFalse(Tripwire.created, "decoded before the receive");
            assertTrue(d.r0().world().recv(1, 5, Duration.ofSeconds(5)).value() instanceof Tripwire);
            assertTrue(Tripwire.created);
        } finally {
            d.close();
        }
    }

    @Test
    void anAbortNeedsAValidProof() {
        Domain2 d = openDomain();
        try {
            assertFalse(host.registry().abort(d.id(), new DomainToken(DomainToken.generate()).proveAbort(d.id())));
            assertFalse(host.registry().domain(d.id()).isAborted());
            assertTrue(host.registry().abort(d.id(), new DomainToken(d.token()).proveAbort(d.id())));
            assertTrue(host.registry().domain(d.id()).isAborted());
        } finally {
            d.close();
        }
    }

    @Test
    void storesForUnknownDomainsAreBusyForEndedOnesDroppedAndForAbortedOnesRejected() {
        Domain2 d = openDomain();
        Envelope e = d.envelope(1, 0, 5, 0, "late");
        d.close();
        assertEquals(Inbox.Outcome.DUPLICATE, host.registry().store(e));
        Domain2 aborted = openDomain();
        host.registry().abortLocally(aborted.id(), "test");
        Envelope toAborted = aborted.envelope(1, 0, 5, 0, "late");
        assertEquals(Inbox.Outcome.REJECTED, host.registry().store(toAborted));
        aborted.close();
        assertEquals(Inbox.Outcome.REJECTED, host.registry().store(toAborted));
        Envelope unknown = new Envelope(DomainToken.generate(), 0, 1, 0, 5, 0, Envelope.Kind.DATA, new byte[32],
                Payload.of("early"));
        assertEquals(Inbox.Outcome.BUSY, host.registry().store(unknown));
    }

    @Test
    void domainTokensAreLongAndUrlSafe() {
        String t = DomainToken.generate();
        assertEquals(43, t.length());
        assertTrue(t.matches("[A-Za-z0-9_-]+"), t);
        assertFalse(t.equals(DomainToken.generate()));
    }
}
