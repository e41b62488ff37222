package org.mpfl.runtime.p2p;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.mpfl.protocol.Endpoint;
import org.mpfl.runtime.transport.Envelope;
import org.mpfl.runtime.transport.Inbox;

/**
 * {@link MessagingHost#inJvmOnly}, the messaging of {@code mpflc run --local} in one JVM: no network entry of
 * any kind, and therefore messages without token proofs; a host with network entries still proves every
 * message and rejects one without its proof.
 */
class InJvmMessagingTest {
    private static final String DOMAIN = "in-jvm-domain";
    private static final String TOKEN = "in-jvm-token";

    @Test
    void aHostOfThisJvmOnlyHasNoNetworkEntry() throws IOException {
        try (MessagingHost host = MessagingHost.inJvmOnly("h", MessagingSettings.fromSystemProperties());
             SocketChannel unconnected = SocketChannel.open()) {
            assertTrue(host.registry().inJvmOnly());
            assertNull(host.binaryAddress(), "no binary channel");
            assertNull(host.binaryGuard(), "no binary channel to guard");
            assertThrows(IOException.class, () -> host.adoptBinary(unconnected), "no binary channel to hand connections to");
        }
    }

    @Test
    void messagesOfADomainInThisJvmCarryNoProofAndNeedNone() {
        try (MessagingHost host = MessagingHost.inJvmOnly("h", MessagingSettings.fromSystemProperties())) {
            RankInstance rank0 = open(host, 0);
            open(host, 1);
            Envelope header = rank0.envelope(0, 1, 7, 0, Envelope.Kind.DATA, null);
            assertNull(header.proof(), "no HMAC where the same JVM would check it");
            Inbox.Admission a = host.registry().admit(header, 0);
            assertTrue(a.proven());
            assertFalse(a.outcome() == Inbox.Outcome.REJECTED, a.toString());
            a.release();
        }
    }

    @Test
    void aHostWithNetworkEntriesStillRejectsAMessageWithoutItsProof() {
        try (MessagingHost host = MessagingHost.start("n", null, 0, null, MessagingSettings.fromSystemProperties(), null)) {
            assertFalse(host.registry().inJvmOnly());
            RankInstance rank0 = open(host, 0);
            open(host, 1);
            Envelope proven = rank0.envelope(0, 1, 7, 0, Envelope.Kind.DATA, null);
            assertNotNull(proven.proof(), "every message proven");
            Envelope unproven = new Envelope(DOMAIN, 0, 0, 1, 7, 0, Envelope.Kind.DATA, null, null);
            Inbox.Admission a = host.registry().admit(unproven, 0);
            assertEquals(Inbox.Outcome.REJECTED, a.outcome());
            assertFalse(a.proven());
        }
    }

    /** The deadlock detector tells a receipt in transit from a send never matched by these counts (DeadlockDetector). */
    @Test
    void messagesAndSynchronousReceiptsAreCountedOnBothSides() throws Exception {
        try (MessagingHost host = MessagingHost.inJvmOnly("h", MessagingSettings.fromSystemProperties())) {
            RankInstance rank0 = open(host, 0);
            RankInstance rank1 = open(host, 1);
            P2PCommunicator sender = new P2PCommunicator(rank0, 0, new int[] {0, 1}, "world");
            P2PCommunicator receiver = new P2PCommunicator(rank1, 0, new int[] {0, 1}, "world");
            java.util.concurrent.CompletableFuture<Void> sent = java.util.concurrent.CompletableFuture.runAsync(
                    () -> sender.ssend("matched", 1, 3));
            assertEquals("matched", receiver.recv(0, 3).value());
            sent.get(30, java.util.concurrent.TimeUnit.SECONDS);
            assertEquals(java.util.Map.of("0", 1L), rank1.counters().asEventValue().get("receiptsSentTo"));
            assertEquals(java.util.Map.of("1", 1L), rank0.counters().asEventValue().get("receiptsFrom"));
            assertEquals(java.util.Map.of(), rank0.counters().asEventValue().get("receiptsSentTo"), "a standard send has no receipt");
            assertEquals(java.util.Map.of("1", 1L), rank0.counters().asEventValue().get("dataSentTo"));
            assertEquals(java.util.Map.of("0", 1L), rank1.counters().asEventValue().get("dataFrom"));
            assertEquals(java.util.Map.of("1", 1L), rank0.counters().asEventValue().get("sentTo"), "the traffic matrix's count");
            assertEquals(java.util.Set.of("1"), ((java.util.Map<?, ?>) rank0.counters().asEventValue().get("bytesTo")).keySet());
            assertEquals(java.util.Map.of(), rank1.counters().asEventValue().get("sentTo"), "a receipt is no message of the matrix");
            receiver.send("back", 0, 5);
            assertEquals(java.util.Map.of("0", 1L), rank1.counters().asEventValue().get("dataSentTo"), "queued: counted");
            assertEquals("back", sender.recv(1, 5).value());
            assertEquals(java.util.Map.of("1", 1L), rank0.counters().asEventValue().get("dataFrom"), "arrived: counted");
        }
    }

    private static RankInstance open(MessagingHost host, int rank) {
        List<Endpoint> endpoints = List.of(new Endpoint("inprocess://" + host.hostId() + "/0", null, host.hostId()),
                new Endpoint("inprocess://" + host.hostId() + "/1", null, host.hostId()));
        return host.registry().open(DOMAIN, rank, TOKEN, endpoints, host.selector(), "local");
    }
}
