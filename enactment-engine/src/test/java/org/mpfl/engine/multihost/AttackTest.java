package org.mpfl.engine.multihost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mpfl.engine.Http;
import org.mpfl.engine.e2e.RingProgram;

/**
 * Attacks from the lab's attacker node ({@link NetworkLab#attacker()}: a machine on the same network
 * that holds no credential) against the engine and the hosts, over real TCP between namespaces. Each
 * must be refused and leave no trace, and a legitimate run started among them must still succeed.
 *
 * <p>Only the attacks the code refuses today are here; the others (unauthenticated
 * announce/heartbeat/leave, a stolen host credential, a 2 GB store length, a slow binary handshake,
 * an {@code object} outside the allow-list) join when their features land: each is a method like
 * these, a few lines against {@link #attacker()} URLs.
 */
@Timeout(240)
class AttackTest {
    static NetworkLab lab;
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    static void start() throws Exception {
        lab = NetworkLab.builder().hosts(3).capacity(1).hostService("ring", RingProgram.class).start();
    }

    @AfterAll
    static void stop() {
        if (lab != null) {
            lab.close();
        }
    }

    /** The engine's URL as the attacker reaches it. */
    static String engineFromAttacker() throws Exception {
        return lab.engineUrl(lab.attacker());
    }

    /** A host's SOAP base URL as the attacker reaches it. */
    static String hostFromAttacker(NetworkLab.Host h) throws Exception {
        return "http://127.0.0.1:" + lab.attacker().reach(h.node().address(), h.soapPort()).getPort();
    }

    static int runCount() throws Exception {
        return Http.get(lab.engineUrl(lab.engineNode()) + "/api/runs").json().size();
    }

    static Map<String, Object> ringPlan(int ranks) {
        return Map.of("params", Map.of("rounds", 5),
                "plan", Map.of("workflow", "ring", "processes", List.of(Map.of("name", "ring", "service", "ring", "ranks", ranks))));
    }

    @Test
    void startingARunWithoutTheAdminTokenIsRefused() throws Exception {
        int before = runCount();
        Http.Answer none = Http.post(engineFromAttacker() + "/api/runs", null, ringPlan(3));
        Http.Answer wrong = Http.post(engineFromAttacker() + "/api/runs", "not-the-token", ringPlan(3));
        assertEquals(401, none.status(), none.body());
        assertEquals(401, wrong.status(), wrong.body());
        assertEquals(before, runCount(), "no run was created");
    }

    @Test
    void deployingThroughTheEngineWithoutTheAdminTokenIsRefused() throws Exception {
        Http.Answer a = Http.post(engineFromAttacker() + "/api/deployments", null,
                Map.of("archives", List.of(Map.of("service", "Evil", "archive", Base64.getEncoder().encodeToString(new byte[] {1, 2, 3})))));
        assertEquals(401, a.status(), a.body());
        assertTrue(!Http.get(lab.engineUrl(lab.engineNode()) + "/api/deployments").body().contains("Evil"));
    }

    @Test
    void deployingStraightToAHostWithoutTheEngineCredentialIsRefused() throws Exception {
        NetworkLab.Host h1 = lab.host("h1");
        for (String auth : new String[] {null, "Bearer not-the-token"}) {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(hostFromAttacker(h1) + "/axis2/services/mpfl-deploy?service=Evil"))
                    .timeout(Duration.ofSeconds(10)).POST(HttpRequest.BodyPublishers.ofByteArray(new byte[] {'P', 'K', 3, 4}));
            if (auth != null) {
                b.header("Authorization", auth);
            }
            HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(403, r.statusCode(), r.body());
        }
        // the host does not offer the service (it re-announces its services after a deployment)
        JsonNode hosts = Http.get(lab.engineUrl(lab.engineNode()) + "/api/registry/hosts").json();
        hosts.forEach(h -> assertTrue(!h.path("services").toString().contains("Evil"), h.toString()));
    }

    @Test
    void aStoreForADomainTheHostDoesNotKnowIsNotAccepted() throws Exception {
        NetworkLab.Host h2 = lab.host("h2");
        String envelope = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><s:Envelope xmlns:s=\"http://www.w3.org/2003/05/soap-envelope\">"
                + "<s:Body><m:store xmlns:m=\"urn:mpfl:mpiws\"><m:domainId>attacker-made-up-domain</m:domainId><m:context>0</m:context>"
                + "<m:from>0</m:from><m:to>0</m:to><m:tag>7</m:tag><m:seq>0</m:seq><m:kind>DATA</m:kind>"
                + "<m:proof>" + Base64.getEncoder().encodeToString(new byte[32]) + "</m:proof><m:type>BYTES</m:type><m:length>4</m:length>"
                + "<m:payload>" + Base64.getEncoder().encodeToString(new byte[] {1, 2, 3, 4}) + "</m:payload></m:store></s:Body></s:Envelope>";
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(hostFromAttacker(h2) + "/axis2/services/ring"))
                .timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/soap+xml; charset=UTF-8; action=\"urn:mpfl:mpiws:store\"")
                .POST(HttpRequest.BodyPublishers.ofString(envelope)).build(), HttpResponse.BodyHandlers.ofString());
        assertNotEquals(202, r.statusCode(), "a store for an unknown domain was accepted: " + r.body());
        assertTrue(r.body().contains("Fault") && (r.body().contains("Rejected") || r.body().contains("Busy")),
                r.statusCode() + " " + r.body());
    }

    @Test
    void garbageOnABinaryPortIsDroppedAndTheHostKeepsServing() throws Exception {
        NetworkLab.Host h3 = lab.host("h3");
        try (Socket s = lab.attacker().connect(h3.node().address(), h3.binaryPort())) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            // the host greets every connection with its challenge ("MPFB", version, 32 random bytes),
            // then closes it on a first frame that is not the answer to it: nothing else comes back
            byte[] got = in.readAllBytes();
            assertTrue(got.length <= 4 + 1 + 32, "the host answered garbage with " + got.length + " bytes");
            assertEquals("MPFB", new String(got, 0, Math.min(4, got.length), StandardCharsets.US_ASCII), "the host's greeting");
        }
        String id = startRing(6);
        JsonNode d = awaitEnd(id);
        assertEquals("SUCCEEDED", d.path("state").asText(), d + "\n" + lab.logs());
    }

    @Test
    void forgedRankEventsDoNotChangeALegitimateRun() throws Exception {
        String id = startRing(6);
        // the run's id is public (GET /api/runs); its domain ID, which authorises rank events, is not
        Map<String, Object> forged = Map.of("domainId", "guessed", "rank", 0, "seq", 0, "type", "STATE", "state", "FAILED",
                "message", "forged by the attacker");
        Http.Answer a = Http.post(engineFromAttacker() + "/api/runs/" + id + "/ranks/events", null, List.of(forged));
        assertTrue(a.status() >= 400 && a.status() < 500, a.status() + " " + a.body());
        JsonNode d = awaitEnd(id);
        assertEquals("SUCCEEDED", d.path("state").asText(), d + "\n" + lab.logs());
        assertEquals(Set.of("h1", "h2", "h3"), lab.placement(id));
        assertTrue(!lab.run(id).toString().contains("forged by the attacker"));
    }

    static String startRing(int ranks) throws Exception {
        Http.Answer a = Http.post(lab.engineUrl(lab.engineNode()) + "/api/runs", lab.token(), ringPlan(ranks));
        assertEquals(201, a.status(), a.body());
        return a.json().get("id").asText();
    }

    static JsonNode awaitEnd(String id) throws Exception {
        long end = System.currentTimeMillis() + 60_000;
        for (;;) {
            JsonNode d = lab.run(id);
            if (Set.of("SUCCEEDED", "FAILED", "CANCELLED").contains(d.path("state").asText())) {
                return d;
            }
            assertTrue(System.currentTimeMillis() < end, "run " + id + " did not end: " + d);
            Thread.sleep(100);
        }
    }
}
