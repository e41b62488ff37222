package org.mpfl.runtime.p2p;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.MpiwsClient;
import org.mpfl.protocol.MpiwsNames;
import org.mpfl.protocol.RankStatus;
import org.mpfl.protocol.launch.HostProcess;
import org.mpfl.protocol.launch.HostProcesses;
import org.mpfl.runtime.transport.Envelope;
import org.mpfl.runtime.transport.Payload;
import org.mpfl.runtime.transport.ReceiverBusyException;
import org.mpfl.runtime.transport.TransportException;
import org.mpfl.runtime.transport.soap.SoapTransport;
import org.mpfl.testing.StartsProcesses;
import org.mpfl.testing.attack.StoreAttack;

/**
 * Batched SOAP stores ({@code storeBatch}, several envelopes in one MTOM package) into a real
 * service-host process over HTTP: each envelope is answered on its own (one faulted, the others
 * delivered), a retried batch is delivered exactly once (the receiver drops the duplicates by
 * sequence number), a batch over the per-request size limit is split, and an envelope of a batch
 * with a forged proof is refused before its (never sent) 100 MB payload is read — the envelope
 * before it in the same request is still delivered.
 */
@StartsProcesses
class SoapBatchTest {
    private static HostProcesses hosts;
    private static final MpiwsClient CLIENT = new MpiwsClient(Duration.ofSeconds(30));

    @BeforeAll
    static void start() throws IOException {
        hosts = HostProcesses.builder().count(2).service(ScenarioProgram.SERVICE, ScenarioProgram.class)
                .jvmArg("-Xmx512m").start();
    }

    @AfterAll
    static void stop() {
        CLIENT.close();
        hosts.close();
    }

    private static Envelope data(HostRuns run, int to, long seq, double first, int length) {
        double[] v = new double[length];
        v[0] = first;
        return new Envelope(run.domainId(), 0, 0, to, 5, seq, Envelope.Kind.DATA, run.prove(0, to, 5, seq), Payload.of(v));
    }

    private static String got(HostRuns run) throws Exception {
        RankStatus s = run.awaitFinal(CLIENT, 1, Duration.ofSeconds(60));
        assertEquals("done", s.state(), "receiving rank: " + s.failure());
        return s.outputsJson().get("got").replace("\"", "");
    }

    @Test
    void aFaultInOneEnvelopeIsReportedForItAloneAndTheOthersAreDelivered() throws Exception {
        // four ranks: host 1 serves ranks 1 and 3; rank 2 lives on host 0, so an envelope for it sent
        // to host 1 is answered BUSY there (proven: its attachment is passed over) — a fault of its own
        HostRuns run = HostRuns.start(hosts, CLIENT, "collect", 4, Map.of("n", "2"), "soap");
        try (SoapTransport soap = new SoapTransport()) {
            List<Envelope> batch = List.of(data(run, 1, 0, 10, 4), data(run, 2, 0, 99, 1000), data(run, 1, 1, 11, 4));
            long before = soap.batchRequestsSent();
            TransportException[] out = soap.storeAll(run.endpoints().get(1), batch);
            assertEquals(1, soap.batchRequestsSent() - before, "one HTTP request for the three envelopes");
            assertNull(out[0], "first envelope");
            assertInstanceOf(ReceiverBusyException.class, out[1], "the envelope for a rank that is not on that host");
            assertNull(out[2], "third envelope, after the faulted one");
        }
        assertEquals("10:4,11:4", got(run));
    }

    @Test
    void aRetriedBatchIsDeliveredExactlyOnce() throws Exception {
        HostRuns run = HostRuns.start(hosts, CLIENT, "collect", 2, Map.of("n", "4"), "soap");
        try (SoapTransport soap = new SoapTransport()) {
            List<Envelope> batch = List.of(data(run, 1, 0, 0, 3), data(run, 1, 1, 1, 3), data(run, 1, 2, 2, 3));
            for (int attempt = 0; attempt < 2; attempt++) {
                // the second time as after a lost answer: the receiver has them all and drops them
                TransportException[] out = soap.storeAll(run.endpoints().get(1), batch);
                for (int i = 0; i < out.length; i++) {
                    assertNull(out[i], "attempt " + attempt + ", envelope " + i);
                }
            }
            // a retried batch that overlaps new messages: seq 2 again, then seq 3
            TransportException[] out = soap.storeAll(run.endpoints().get(1), List.of(batch.get(2), data(run, 1, 3, 3, 3)));
            assertNull(out[0]);
            assertNull(out[1]);
            assertEquals(3, soap.batchRequestsSent(), "every storeAll of several envelopes went as one batch request");
        }
        assertEquals("0:3,1:3,2:3,3:3", got(run), "each message exactly once, in order");
    }

    @Test
    void aBatchOverTheRequestSizeLimitIsSplit() throws Exception {
        // 1 MiB per request by default: five 400 kB envelopes go as 2 + 2 + 1 (the last one as a plain store)
        HostRuns run = HostRuns.start(hosts, CLIENT, "collect", 2, Map.of("n", "6"), "soap");
        int doubles = 50_000;
        try (SoapTransport soap = new SoapTransport()) {
            List<Envelope> batch = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                batch.add(data(run, 1, i, i, doubles));
            }
            TransportException[] out = soap.storeAll(run.endpoints().get(1), batch);
            for (TransportException e : out) {
                assertNull(e);
            }
            assertEquals(2, soap.batchRequestsSent(), "batch requests for 5 × 400 kB under a 1 MiB limit");
            // one envelope over the limit goes alone, between batched neighbours
            out = soap.storeAll(run.endpoints().get(1), List.of(data(run, 1, 5, 5, 200_000)));
            assertNull(out[0]);
            assertEquals(2, soap.batchRequestsSent());
        }
        assertEquals("0:50000,1:50000,2:50000,3:50000,4:50000,5:200000", got(run));
    }

    @Test
    void aForgedEnvelopeInABatchIsRefusedBeforeItsPayloadIsRead() throws Exception {
        // rank 1 waits for two messages, so the domain stays alive on the victim throughout
        HostRuns run = HostRuns.start(hosts, CLIENT, "collect", 2, Map.of("n", "2"), "soap");
        HostProcess victim = hosts.get(1);
        byte[] good = run.prove(0, 1, 5, 0);
        byte[] forged = new DomainToken(DomainToken.generate()).prove(run.domainId(), 0, 0, 1, 5, 1, Envelope.Kind.DATA.ordinal());
        long announced = 100_000_000L;
        System.gc();
        long before = StoreAttack.residentKb(victim.process().pid());
        String answer = sendBatch(victim.serviceUrl(ScenarioProgram.SERVICE), run.domainId(), good, forged, announced);
        long grownMb = (StoreAttack.residentKb(victim.process().pid()) - before) / 1024;
        assertTrue(answer.startsWith("HTTP/1.1 200"), answer);
        assertTrue(answer.contains("Connection: close"), "the rest of the body is not read: " + answer);
        int stored = answer.indexOf("<m:stored/>");
        int rejected = answer.indexOf("<m:subcode>Rejected</m:subcode>");
        assertTrue(stored > 0 && rejected > stored, "first stored, then the forged one rejected: " + answer);
        assertTrue(grownMb < 64, "the host's resident memory grew by " + grownMb + " MB");
        try (SoapTransport soap = new SoapTransport()) {
            soap.store(run.endpoints().get(1), data(run, 1, 1, 8, 1)); // the real seq 1 (the forged one was not taken)
        }
        assertEquals("7:2,8:1", got(run), "the proven envelope before the forged one was delivered, the forged one not");
    }

    /**
     * A hand-made storeBatch over a raw socket: entry 0 proven (two doubles, 7 and 0), entry 1 with
     * {@code proof2} announcing {@code length2} bytes, of which only 4 MB are ever pushed; returns
     * the answer (the host must answer or close within 10 s, i.e. without waiting for the rest).
     */
    private static String sendBatch(String url, String domainId, byte[] proof1, byte[] proof2, long length2) throws Exception {
        URI u = URI.create(url);
        String b = "batchattack";
        String root = "<?xml version=\"1.0\"?><s:Envelope xmlns:s=\"" + MpiwsNames.SOAP12_NS + "\"><s:Body>"
                + "<m:storeBatch xmlns:m=\"" + MpiwsNames.NS + "\">" + entry(domainId, 0, proof1, "DOUBLE_ARRAY", 16, "p1")
                + entry(domainId, 1, proof2, "BYTES", length2, "p2") + "</m:storeBatch></s:Body></s:Envelope>";
        byte[] payload1 = new byte[16];
        payload1[6] = 0x1c; // 7.0 as a little-endian double: 0x401C000000000000
        payload1[7] = 0x40;
        String head = "--" + b + "\r\nContent-Type: application/xop+xml; charset=UTF-8; type=\"application/soap+xml\""
                + "\r\nContent-ID: <root>\r\n\r\n" + root
                + "\r\n--" + b + "\r\nContent-Type: application/octet-stream\r\nContent-ID: <p1>\r\n\r\n";
        String between = "\r\n--" + b + "\r\nContent-Type: application/octet-stream\r\nContent-ID: <p2>\r\n\r\n";
        long contentLength = head.length() + payload1.length + between.length() + length2 + ("\r\n--" + b + "--\r\n").length();
        String request = "POST " + u.getRawPath() + " HTTP/1.1\r\nHost: " + u.getHost() + ":" + u.getPort()
                + "\r\nContent-Type: multipart/related; boundary=\"" + b + "\"; type=\"application/xop+xml\"; "
                + "start=\"<root>\"; start-info=\"application/soap+xml\"; action=\"" + MpiwsNames.action(MpiwsNames.OP_STORE_BATCH)
                + "\"\r\nContent-Length: " + contentLength + "\r\n\r\n" + head;
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        bytes.write(request.getBytes(StandardCharsets.UTF_8));
        bytes.write(payload1);
        bytes.write(between.getBytes(StandardCharsets.US_ASCII));
        return StoreAttack.exchange(u, bytes.toByteArray(), 64);
    }

    private static String entry(String domainId, long seq, byte[] proof, String type, long length, String cid) {
        return "<m:store><m:domainId>" + domainId + "</m:domainId><m:context>0</m:context><m:from>0</m:from>"
                + "<m:to>1</m:to><m:tag>5</m:tag><m:seq>" + seq + "</m:seq><m:kind>DATA</m:kind><m:proof>"
                + Base64.getEncoder().encodeToString(proof) + "</m:proof><m:type>" + type + "</m:type><m:length>" + length
                + "</m:length><m:payload><xop:Include xmlns:xop=\"" + MpiwsNames.XOP_NS + "\" href=\"cid:" + cid
                + "\"/></m:payload></m:store>";
    }
}
