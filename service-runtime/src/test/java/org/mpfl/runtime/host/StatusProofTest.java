package org.mpfl.runtime.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.FaultKind;
import org.mpfl.protocol.MpiwsClient;
import org.mpfl.protocol.MpiwsNames;
import org.mpfl.protocol.RankStatus;
import org.mpfl.protocol.RunMessages;
import org.mpfl.protocol.RunRequest;
import org.mpfl.protocol.SoapFault;
import org.mpfl.testing.Await;

/**
 * The attack on {@code status}: a caller who knows a domain ID (it travels in every store, and in the
 * engine's logs) but not its token reads a finished rank's status over real SOAP HTTP from a real service
 * host. It gets what the MPIWS specification defines — state, progress, counters — but neither the rank's
 * outputs nor its failure message; a wrong token's proof, another rank's proof and the abort proof get no
 * more. The domain token's status proof gets them ({@code DomainToken.proveStatus}).
 */
class StatusProofTest {
    private static final String TYPE = "Secretive";
    /** What the rank outputs, or fails with: what a stranger must not read. */
    private static final String SECRET = "the-run-s-secret-result";
    private static ServiceHost host;
    private static final MpiwsClient CLIENT = new MpiwsClient(Duration.ofSeconds(20));

    @BeforeAll
    static void startHost() throws Exception {
        host = ServiceHost.start(ServiceHost.Options.loopback());
        host.registerServiceType(TYPE, () -> ctx -> {
            ctx.progress(1, 1);
            if ("workflow".equals(ctx.params().get("fail"))) {
                throw new IllegalStateException(SECRET);
            }
            if ("delivery".equals(ctx.params().get("fail"))) {
                throw new org.mpfl.runtime.api.DeliveryException(SECRET, null);
            }
            ctx.output("result", SECRET);
        });
    }

    @AfterAll
    static void stopHost() {
        if (host != null) {
            host.close();
        }
    }

    private record Started(String domainId, String token) {
        byte[] proof(int rank) {
            return new DomainToken(token).proveStatus(domainId, rank);
        }
    }

    /**
     * Runs rank 0 of a one-rank domain to its end (read as the engine reads it: with the proof).
     *
     * @param fail how the rank fails: {@code "workflow"} (an exception of its own), {@code "delivery"} (a
     *             {@code DeliveryException}), or {@code "no"}
     */
    private static Started runToTheEnd(String fail) throws Exception {
        Started d = new Started(DomainToken.generate(), DomainToken.generate());
        String url = host.serviceUrl(TYPE);
        CLIENT.run(url, new RunRequest(d.domainId(), 0, List.of(host.endpoint(TYPE)), List.of(),
                Map.of("fail", fail), d.token(), null, "soap"));
        Await.until(Duration.ofSeconds(30), "the rank ends", () -> CLIENT.status(url, d.domainId(), 0, d.proof(0)),
                RankStatus::isFinal);
        return d;
    }

    /** A spec reader's status request: a plain SOAP 1.2 envelope without a proof; the answer's body. */
    private static String statusAsASpecReader(String domainId) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(host.serviceUrl(TYPE)))
                .timeout(Duration.ofSeconds(20))
                .header("Content-Type", "application/soap+xml; charset=UTF-8; action=\"" + MpiwsNames.action(MpiwsNames.OP_STATUS) + "\"")
                .POST(HttpRequest.BodyPublishers.ofString(MpiwsNames.envelope(RunMessages.statusXml(domainId, 0)))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        return r.body();
    }

    @Test
    void aFinishedRanksOutputsNeedTheStatusProof() throws Exception {
        Started d = runToTheEnd("no");
        String url = host.serviceUrl(TYPE);

        // knowing the domain ID only: the spec's answer, not the output (not in the raw answer either)
        String raw = statusAsASpecReader(d.domainId());
        RankStatus stranger = RunMessages.parseStatusResponse(raw);
        assertEquals("done", stranger.state(), raw);
        assertEquals(1.0, stranger.progressValue(), raw);
        assertNotNull(stranger.countersJson(), "counters are the spec's: " + raw);
        assertEquals(Map.of(), stranger.outputsJson(), raw);
        assertFalse(raw.contains(SECRET), "the output reached a caller without the token: " + raw);

        // proofs that are not this rank's status proof: no more than a stranger's
        Map<String, byte[]> wrongProofs = Map.of(
                "a wrong token's", new DomainToken(DomainToken.generate()).proveStatus(d.domainId(), 0),
                "another rank's", d.proof(1),
                "another domain's", new DomainToken(d.token()).proveStatus(DomainToken.generate(), 0),
                "the abort proof", new DomainToken(d.token()).proveAbort(d.domainId()));
        for (Map.Entry<String, byte[]> wrong : wrongProofs.entrySet()) {
            RankStatus s = CLIENT.status(url, d.domainId(), 0, wrong.getValue());
            assertEquals("done", s.state(), wrong.getKey());
            assertEquals(Map.of(), s.outputsJson(), "with " + wrong.getKey() + " proof: " + s);
        }

        // the domain token's status proof (what the engine sends): the output
        RankStatus engine = CLIENT.status(url, d.domainId(), 0, d.proof(0));
        assertEquals("done", engine.state());
        assertEquals("\"" + SECRET + "\"", engine.outputsJson().get("result"), engine.toString());
    }

    @Test
    void aFailedRanksMessageNeedsTheProofToo() throws Exception {
        Started d = runToTheEnd("workflow");
        String raw = statusAsASpecReader(d.domainId());
        RankStatus stranger = RunMessages.parseStatusResponse(raw);
        assertEquals("failed", stranger.state(), raw);
        assertNull(stranger.failure(), raw);
        assertFalse(raw.contains(SECRET), "the failure message reached a caller without the token: " + raw);

        RankStatus engine = CLIENT.status(host.serviceUrl(TYPE), d.domainId(), 0, d.proof(0));
        assertEquals("failed", engine.state());
        assertTrue(String.valueOf(engine.failure()).contains(SECRET), engine.toString());
        assertEquals(FaultKind.WORKFLOW, engine.fault(), engine.toString());
        assertNull(stranger.fault(), "the kind goes with the message: " + raw);
    }

    /** The engine learns whose fault a failure is from the status answer too (its FAILED event may be lost on the way). */
    @Test
    void aFailedRanksStatusSaysWhoseFaultItIs() throws Exception {
        Started d = runToTheEnd("delivery");
        RankStatus engine = CLIENT.status(host.serviceUrl(TYPE), d.domainId(), 0, d.proof(0));
        assertEquals("failed", engine.state());
        assertEquals(FaultKind.INFRASTRUCTURE, engine.fault(), engine.toString());
        assertTrue(String.valueOf(engine.failure()).startsWith("DeliveryException: " + SECRET), engine.toString());
    }

    @Test
    void aProofThatIsNotBase64IsAMalformedRequest() {
        MpiwsClient.MpiwsCallException e = assertThrows(MpiwsClient.MpiwsCallException.class, () -> CLIENT.call(
                host.serviceUrl(TYPE), MpiwsNames.OP_STATUS, "<m:status xmlns:m=\"" + MpiwsNames.NS + "\"><m:domainId>d"
                        + "</m:domainId><m:rank>0</m:rank><m:proof>not base64!</m:proof></m:status>"));
        assertEquals(SoapFault.MALFORMED, e.fault().subcode(), e.getMessage());
        assertTrue(e.getMessage().contains("proof is not base64"), e.getMessage());
    }

    @Test
    void aRankThisHostDoesNotHaveIsUnknownWithOrWithoutAProof() throws Exception {
        String domainId = DomainToken.generate();
        byte[] proof = new DomainToken(DomainToken.generate()).proveStatus(domainId, 0);
        assertEquals("unknown", CLIENT.status(host.serviceUrl(TYPE), domainId, 0, proof).state());
        assertEquals("unknown", CLIENT.status(host.serviceUrl(TYPE), domainId, 0).state());
    }
}
