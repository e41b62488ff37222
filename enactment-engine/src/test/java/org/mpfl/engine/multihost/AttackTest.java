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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.mpfl.testing.Http;
import org.mpfl.engine.e2e.RingProgram;
import org.mpfl.engine.json.Json;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.Endpoint;
import org.mpfl.protocol.HostCredential;
import org.mpfl.protocol.RunMessages;
import org.mpfl.protocol.RunRequest;
import org.mpfl.testing.attack.StoreAttack;
import org.mpfl.testing.attack.gadget.Tripwire;
import org.mpfl.testing.attack.gadget.TripwireMarks;
import org.mpfl.runtime.transport.Envelope;
import org.mpfl.runtime.transport.Payload;
import org.mpfl.runtime.transport.soap.SoapTransport;
import org.mpfl.testing.StartsProcesses;
import org.mpfl.testing.Await;
import org.mpfl.testing.lab.NetworkLab;

/**
 * Attacks from the lab's attacker node ({@link NetworkLab#attacker()}: a machine on the same network
 * that holds no credential, or a stolen one) against the engine and the hosts, over real TCP between
 * namespaces. Each must be refused and leave no trace (registry, run list, deployed services, host
 * memory, no gadget constructed), and a legitimate ring started before the attacks must succeed.
 *
 * <p>That ring is provably running during every attack: it goes round (paced: rank 0 waits
 * {@value #PACE_MS} ms after each round) until the last test tells it to stop, and after each attack it must still be
 * {@code RUNNING} and have gone further round than before the attack ({@link #theLegitimateRingGoesOn});
 * stopped at the end, it must have SUCCEEDED with the token of exactly the rounds it did.
 *
 * <p>The lab runs without TLS and with the binary channel on: a plaintext network is the worst case
 * — the attacker may sniff domain IDs, and the admission checks must hold anyway — and the binary
 * protocol's own handshake is reached without a certificate (the runs over TLS, binary channel
 * included, are {@link MultiHostRunTest}'s; TLS refusing plaintext and untrusting binary clients is
 * the runtime's {@code BinaryTlsTest}).
 */
@Timeout(240)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@StartsProcesses
class AttackTest {
    static NetworkLab lab;
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    /** Rank 0 of the legitimate ring waits this long after each round. */
    static final int PACE_MS = 100;
    /**
     * At most this many rounds: over 10 minutes at the pace, far beyond the attacks (~20 s); it only
     * ends the ring if this class never got to stop it.
     */
    static final int MAX_ROUNDS = 6_000;
    /** A ring started before the attacks, going round until {@link #stopLegitimate} exists; checked after each attack and last. */
    static String legitimate;
    static Path stopLegitimate;
    /** Set by the last test, which stops the ring: from then on it is no longer expected to be running. */
    static volatile boolean legitimateStopped;
    /** The rounds the legitimate ring had done (rank 0's progress) when the current attack began. */
    long roundsBefore;

    @BeforeAll
    static void start() throws Exception {
        lab = NetworkLab.builder().hosts(3).capacity(1).hostService("ring", RingProgram.class)
                .hostService(ObjectVictimProgram.SERVICE, ObjectVictimProgram.class).start();
        // the hosts share this machine's file system, so rank 0 (in h1's namespace) sees the file appear
        stopLegitimate = lab.directory().resolve("legitimate-ring.stop");
        legitimate = startRing(3, Map.of("rounds", MAX_ROUNDS, "pauseMs", PACE_MS, "stopFile", stopLegitimate.toString()));
        awaitRoundsAbove(0);
    }

    @BeforeEach
    void noteTheLegitimateRingsRounds() throws Exception {
        roundsBefore = rounds(lab.run(legitimate));
    }

    /**
     * After each attack the legitimate ring is still running and has gone round further than before
     * it: it was running throughout the attack (started before, not ended since) and the attack did
     * not stall it.
     */
    @AfterEach
    void theLegitimateRingGoesOn(TestInfo test) throws Exception {
        if (legitimateStopped) {
            return;
        }
        JsonNode d = lab.run(legitimate);
        assertEquals("RUNNING", d.path("state").asText(), "the legitimate ring is no longer running after "
                + test.getDisplayName() + ": " + d + "\n" + lab.logs());
        awaitRoundsAbove(roundsBefore);
    }

    /** Rank 0's rounds done, as the engine last heard (its progress events come every 250 ms or so). */
    static long rounds(JsonNode run) {
        return run.at("/ranks/0/progress/value").asLong(0);
    }

    /** Waits (bounded) until the legitimate ring has done more than {@code rounds} rounds. */
    static void awaitRoundsAbove(long rounds) throws Exception {
        Await.until(Duration.ofSeconds(30), () -> "the legitimate ring goes round past round " + rounds + "\n" + lab.logs(),
                () -> lab.run(legitimate), d -> rounds(d) > rounds);
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

    /** A lab URL ({@code http://10.77.0.x:PORT/…}) as the attacker reaches it. */
    static String fromAttacker(String labUrl) throws Exception {
        URI u = URI.create(labUrl);
        return "http://127.0.0.1:" + lab.attacker().reach(u.getHost(), u.getPort()).getPort() + u.getRawPath()
                + (u.getRawQuery() == null ? "" : "?" + u.getRawQuery());
    }

    static int runCount() throws Exception {
        return lab.adminGet("/api/runs").json().size();
    }

    /** What an attack must not change in the registry: each host's id, address, services and capacity. */
    static Map<String, String> registry() throws Exception {
        Map<String, String> out = new TreeMap<>();
        lab.adminGet("/api/registry/hosts").json().forEach(h -> out.put(h.path("hostId").asText(),
                h.path("soapUrl").asText() + " " + h.path("services") + " " + h.path("capacity")));
        return out;
    }

    static Map<String, Object> ringPlan(int ranks) {
        return ringPlan(ranks, Map.of("rounds", 5));
    }

    /** A run of the ring with these parameters ({@link RingProgram}'s). */
    static Map<String, Object> ringPlan(int ranks, Map<String, Object> params) {
        return Map.of("params", params,
                "plan", Map.of("workflow", "ring", "processes", List.of(Map.of("name", "ring", "service", "ring", "ranks", ranks))));
    }

    @Test
    @Order(Integer.MAX_VALUE)
    void theRingStartedBeforeTheAttacksSucceeded() throws Exception {
        long seen = rounds(lab.run(legitimate));
        legitimateStopped = true;
        Files.createFile(stopLegitimate);
        JsonNode d = awaitEnd(legitimate);
        assertEquals("SUCCEEDED", d.path("state").asText(), d + "\n" + lab.logs());
        long done = d.at("/outputs/rounds/0").asLong();
        assertTrue(done >= seen && done < MAX_ROUNDS, "rounds " + done + ", seen " + seen + " before the stop: " + d);
        assertEquals(3 * done, d.at("/outputs/token/0").asLong(), "each of the 3 ranks adds 1 per round: " + d);
        assertEquals(Set.of("h1", "h2", "h3"), lab.placement(legitimate));
    }

    @Test
    void announceHeartbeatAndLeaveWithoutOrWithAWrongCredentialAreRefused() throws Exception {
        Map<String, String> before = registry();
        HostCredential forged = HostCredential.generate(lab.engineUrl(), "h1"); // right form, never issued
        String atk = "http://" + lab.attacker().address() + ":9/axis2/services";
        List<String> refusals = new ArrayList<>();
        for (String auth : new String[] {null, "Bearer not-a-credential", forged.authorization(), "Bearer " + lab.token().substring(1)}) {
            refusals.add(Http.send("POST", engineFromAttacker() + "/api/registry/hosts", auth,
                    Map.of("hostId", "evil", "soapUrl", atk, "services", List.of("ring"), "capacity", 512)).status()
                    + " " + Http.send("POST", engineFromAttacker() + "/api/registry/hosts", auth,
                    Map.of("hostId", "h1", "soapUrl", atk, "services", List.of("ring"), "capacity", 512)).status()
                    + " " + Http.send("POST", engineFromAttacker() + "/api/registry/hosts/h1/heartbeat", auth, "").status()
                    + " " + Http.send("DELETE", engineFromAttacker() + "/api/registry/hosts/h1", auth, null).status());
        }
        assertEquals(List.of("401 401 401 401", "401 401 401 401", "401 401 401 401", "401 401 401 401"), refusals);
        assertEquals(before, registry(), "the registry did not change");
    }

    /**
     * A host credential stolen (say, from the enrolment file of a host not yet installed) lets the
     * attacker announce as that host, from its own machine. What the engine then sends it — its
     * deployments and the {@code run} of a rank placed on it — carries that host's engine key only:
     * replayed at a real host, deploy and run are refused. And holding that rank, the attacker holds
     * the domain's token (a compromised rank): its stores are admitted, and so the victim rank's own
     * checks are what refuse them — an {@code object} payload naming a class outside the allow-list
     * is refused in the victim and the class is never made there; a store for an unknown domain, with
     * a wrong proof, or announcing 2 GB is refused from its header, the victim's memory not growing.
     */
    @Test
    void aHostCredentialStolenFromAnEnrolmentLearnsNothingThatWorksElsewhere() throws Exception {
        HostCredential stolen = HostCredential.parse(lab.issueCredential("h0"), "a stolen join file");
        Path captures = Files.createDirectories(lab.directory().resolve("captured"));
        Process rogue = lab.attacker().startJava(CapturingHost.class, "capturing-host", lab.attacker().address(), captures.toString());
        try {
            int port = awaitRogue();
            String soap = "http://" + lab.attacker().address() + ":" + port + "/axis2/services";
            // it may not speak for another host: authenticated, but forbidden
            assertEquals(403, Http.send("POST", engineFromAttacker() + "/api/registry/hosts", stolen.authorization(),
                    Map.of("hostId", "h1", "soapUrl", soap, "services", List.of(ObjectVictimProgram.SERVICE), "capacity", 1)).status());
            Http.Answer announced = Http.send("POST", engineFromAttacker() + "/api/registry/hosts", stolen.authorization(),
                    Map.of("hostId", "h0", "soapUrl", soap, "services", List.of(ObjectVictimProgram.SERVICE), "capacity", 1,
                            "deployUrl", soap + "/mpfl-deploy"));
            assertEquals(201, announced.status(), announced.body());
            assertTrue(registry().get("h1").startsWith("http://" + lab.host("h1").node().address()), "h1 is still h1");

            // the engine deploys to it, and places rank 0 of a run on it (first by id), rank 1 on a real host
            Http.post(lab.engineUrl(lab.engineNode()) + "/api/deployments", lab.token(), Map.of("service", "probe",
                    "archive", Base64.getEncoder().encodeToString("not an archive".getBytes(StandardCharsets.UTF_8))));
            Http.Answer started = Http.post(lab.engineUrl(lab.engineNode()) + "/api/runs", lab.token(), Map.of(
                    "params", Map.of("n", 2),
                    "plan", Map.of("workflow", "victim", "processes", List.of(Map.of("name", "victim", "service",
                            ObjectVictimProgram.SERVICE, "ranks", 2)))));
            assertEquals(201, started.status(), started.body());
            String runId = started.json().get("id").asText();
            List<JsonNode> got = awaitCaptures(captures);
            JsonNode run = got.stream().filter(AttackTest::isRun).findFirst().orElseThrow();
            RunRequest request = RunMessages.parseRun(body(run));
            assertEquals(0, request.rank(), "rank 0 was placed on the rogue");
            Endpoint victimEndpoint = request.endpoints().get(1);
            NetworkLab.Host victim = lab.host(victimEndpoint.hostId());

            // what it learnt: its own key only — not the admin token, not a real host's key
            for (JsonNode c : got) {
                String text = c.toString() + new String(body(c).getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8);
                // deploy and run carry the rogue's own key; status polls carry no key (they change nothing; their body
                // proves the domain token, which a rank placed on the rogue was given anyway)
                if (!c.path("contentType").asText().contains(org.mpfl.protocol.MpiwsNames.action(org.mpfl.protocol.MpiwsNames.OP_STATUS))) {
                    assertEquals(HostCredential.engineAuthorization(stolen.engineKey()), c.path("authorization").asText(), text);
                }
                assertTrue(!text.contains(lab.token()) && !body(c).contains(lab.token()), "the admin token reached the rogue");
                for (NetworkLab.Host h : lab.hosts()) {
                    assertTrue(!body(c).contains(engineKey(h)) && !text.contains(engineKey(h)), h + "'s key reached the rogue");
                }
            }
            // replayed at a real host from the attacker's machine: refused
            NetworkLab.Host h1 = lab.host("h1");
            for (JsonNode c : got) {
                HttpResponse<String> deploy = post(hostFromAttacker(h1) + "/axis2/services/mpfl-deploy?service=Evil",
                        c.path("authorization").asText(), "application/octet-stream", new byte[] {'P', 'K', 3, 4});
                assertEquals(403, deploy.statusCode(), deploy.body());
                if (isRun(c)) {
                    for (NetworkLab.Host h : lab.hosts()) {
                        HttpResponse<String> replayed = post(hostFromAttacker(h) + "/axis2/services/" + ObjectVictimProgram.SERVICE,
                                c.path("authorization").asText(), c.path("contentType").asText(), body(c).getBytes(StandardCharsets.UTF_8));
                        assertTrue(replayed.statusCode() / 100 != 2 && replayed.body().contains("run refused"),
                                h + ": " + replayed.statusCode() + " " + replayed.body());
                    }
                }
            }

            // a compromised rank: the domain's token in hand, it sends the victim rank a gadget…
            String victimUrl = fromAttacker(victimEndpoint.soapUrl());
            inject(request, new Endpoint(victimUrl, null, victimEndpoint.hostId()), 0, Payload.decode(Payload.Type.OBJECT,
                    ("[\"" + Tripwire.class.getName() + "\",{\"command\":\"touch /tmp/pwned\"}]").getBytes(StandardCharsets.UTF_8)));
            // …and stores the host must refuse from their header: unknown domain, wrong proof, 2 GB
            byte[] goodProof = new DomainToken(request.token()).prove(request.domainId(), 0, 0, 1, 0, 0, Envelope.Kind.DATA.ordinal());
            byte[] wrongProof = new DomainToken(DomainToken.generate()).prove(request.domainId(), 0, 0, 1, 0, 0,
                    Envelope.Kind.DATA.ordinal());
            long pid = victim.process().process().pid();
            long before = StoreAttack.residentKb(pid);
            // Through the relay a refusal's answer may be lost: the host closes with our payload unread,
            // the kernel resets, the relay passes the reset on. Closed within 10 s (StoreAttack asserts
            // it) with no answer is a refusal too; a 2xx never is. Memory is checked below.
            for (int i = 0; i < 5; i++) {
                assertRefused(StoreAttack.send(victimUrl, DomainToken.generate(), wrongProof, 100_000_000L), "m:Busy");
                assertRefused(StoreAttack.send(victimUrl, request.domainId(), wrongProof, 100_000_000L), "m:Rejected");
                assertRefused(StoreAttack.send(victimUrl, request.domainId(), goodProof, 2_000_000_000L), "per-message limit");
            }
            long grownMb = (StoreAttack.residentKb(pid) - before) / 1024;
            assertTrue(grownMb < 64, "the victim host's resident memory grew by " + grownMb + " MB");
            // then an allowed message: the victim rank goes on
            inject(request, new Endpoint(victimUrl, null, victimEndpoint.hostId()), 1, Payload.of(new byte[] {1, 2, 3}));
            JsonNode outputs = awaitOutput(runId, "marks");
            String m0 = outputs.at("/m0/1").asText();
            assertTrue(m0.startsWith("refused:") && m0.contains("names class " + Tripwire.class.getName()), outputs.toString());
            assertEquals("ok:[B", outputs.at("/m1/1").asText(), outputs.toString());
            assertEquals(TripwireMarks.NONE, outputs.at("/marks/1").asText(), "the gadget ran in the victim");
            String props = org.mpfl.protocol.launch.NetworkNamespaces.exec(List.of(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                    Long.toString(pid), "VM.system_properties"), Duration.ofSeconds(30)).out();
            // the attach socket jcmd made the victim open: HotSpot keeps it in /tmp whatever java.io.tmpdir says, and a
            // JVM that is killed (as the lab stops its hosts) leaves it there; nothing attaches to the victim again
            java.nio.file.Files.deleteIfExists(Path.of("/tmp/.java_pid" + pid));
            assertTrue(props.contains("java.version") && !props.contains("mpfl.test.tripwire"), "gadget marks in the victim JVM");
            Http.post(lab.engineUrl(lab.engineNode()) + "/api/runs/" + runId + "/cancel", lab.token(), null);
            // no trace: nothing deployed as Evil on any real host
            registryOfReal().forEach((id, h) -> assertTrue(!h.contains("Evil"), id + ": " + h));
        } finally {
            // revoked: the stolen credential no longer works, the rogue leaves the registry
            Http.send("DELETE", lab.engineUrl(lab.engineNode()) + "/api/registry/credentials/" + stolen.id(), "Bearer " + lab.token(), null);
            rogue.destroyForcibly().waitFor(10, java.util.concurrent.TimeUnit.SECONDS);
        }
        assertTrue(!registry().containsKey("h0"), "the revoked host left the registry");
        assertEquals(401, Http.send("POST", engineFromAttacker() + "/api/registry/hosts/h0/heartbeat", stolen.authorization(), "").status());
    }

    /**
     * A store's answer is the refusal expected, or there is none, or only a refusal's head (see the
     * caller: the relay can pass the host's reset on after the head and before the body).
     */
    static void assertRefused(String answer, String expected) {
        int headEnd = answer.indexOf("\r\n\r\n");
        boolean refusalHeadOnly = answer.matches("(?s)HTTP/1\\.1 [45]\\d\\d .*") && headEnd >= 0
                && answer.substring(headEnd + 4).isEmpty();
        assertTrue(answer.isEmpty() || refusalHeadOnly || answer.contains(expected) && !answer.startsWith("HTTP/1.1 2"), answer);
    }

    static Map<String, String> registryOfReal() throws Exception {
        Map<String, String> out = new TreeMap<>();
        lab.adminGet("/api/registry/hosts").json().forEach(h -> out.put(h.path("hostId").asText(), h.toString()));
        return out;
    }

    /** Sends one DATA message from rank 0 to rank 1 with tag 5 as rank 0 would: proven with the domain's token. */
    static void inject(RunRequest request, Endpoint to, long seq, Payload payload) throws Exception {
        byte[] proof = new DomainToken(request.token()).prove(request.domainId(), 0, 0, 1, 5, seq, Envelope.Kind.DATA.ordinal());
        try (SoapTransport wire = new SoapTransport()) {
            wire.store(to, new Envelope(request.domainId(), 0, 0, 1, 5, seq, Envelope.Kind.DATA, proof, payload));
        }
    }

    /** A host's engine key, from the credential in its environment (this JVM runs as root). */
    static String engineKey(NetworkLab.Host h) throws Exception {
        String environ = Files.readString(Path.of("/proc/" + h.process().process().pid() + "/environ"), StandardCharsets.UTF_8);
        for (String kv : environ.split("\0")) {
            if (kv.startsWith(HostCredential.ENV + "=")) {
                return HostCredential.parse(kv.substring(HostCredential.ENV.length() + 1), "environ").engineKey();
            }
        }
        throw new AssertionError(h + " has no credential in its environment");
    }

    static int awaitRogue() throws Exception {
        Path log = lab.directory().resolve("capturing-host.log");
        long end = System.currentTimeMillis() + 30_000;
        while (System.currentTimeMillis() < end) {
            if (Files.exists(log)) {
                for (String line : Files.readAllLines(log)) {
                    if (line.startsWith(CapturingHost.READY)) {
                        return Integer.parseInt(line.substring(CapturingHost.READY.length()).strip());
                    }
                }
            }
            Thread.sleep(100);
        }
        throw new AssertionError("the rogue host did not start: " + NetworkLab.tail(log));
    }

    /** Waits until the rogue captured a deployment and a {@code run}; returns every capture. */
    static List<JsonNode> awaitCaptures(Path dir) throws Exception {
        long end = System.currentTimeMillis() + 30_000;
        for (;;) {
            List<JsonNode> got = new ArrayList<>();
            try (var files = Files.list(dir)) {
                for (Path f : files.filter(f -> f.toString().endsWith(".json")).sorted().toList()) {
                    got.add(Json.MAPPER.readTree(Files.readString(f)));
                }
            }
            if (got.stream().anyMatch(AttackTest::isRun) && got.stream().anyMatch(c -> c.path("path").asText().contains("mpfl-deploy"))) {
                return got;
            }
            assertTrue(System.currentTimeMillis() < end, "the rogue got no deploy and run: " + got + "\n" + lab.logs());
            Thread.sleep(100);
        }
    }

    static boolean isRun(JsonNode c) {
        return c.path("contentType").asText().contains("action=\"urn:mpfl:mpiws:run\"")
                || c.path("contentType").asText().contains(org.mpfl.protocol.MpiwsNames.action(org.mpfl.protocol.MpiwsNames.OP_RUN));
    }

    static String body(JsonNode c) {
        return new String(Base64.getDecoder().decode(c.path("body").asText()), StandardCharsets.UTF_8);
    }

    static JsonNode awaitOutput(String runId, String name) throws Exception {
        return Await.until(Duration.ofSeconds(60), () -> "output " + name + "\n" + lab.logs(), () -> lab.run(runId),
                d -> d.path("outputs").has(name)).path("outputs");
    }

    static HttpResponse<String> post(String url, String authorization, String contentType, byte[] body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20))
                .header("Content-Type", contentType).POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if (authorization != null && !authorization.isEmpty()) {
            b.header("Authorization", authorization);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
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
        assertTrue(!lab.adminGet("/api/deployments").body().contains("Evil"));
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
        JsonNode hosts = lab.adminGet("/api/registry/hosts").json();
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
            long t0 = System.nanoTime();
            // the host greets every connection with its challenge ("MPFB", version, 32 random bytes),
            // then closes it on a first frame that is not the answer to it: nothing else comes back
            java.io.ByteArrayOutputStream got = new java.io.ByteArrayOutputStream();
            try {
                for (int b = in.read(); b >= 0; b = in.read()) {
                    got.write(b);
                }
            } catch (java.io.IOException reset) {
                // a reset is a close too
            }
            long ms = (System.nanoTime() - t0) / 1_000_000;
            // dropped at its first frame, not by the handshake bound (5 s): well before that bound could have closed it
            assertTrue(ms < 2_500, "garbage handshake closed after " + ms + " ms");
            assertTrue(got.size() <= 4 + 1 + 32, "the host answered garbage with " + got.size() + " bytes");
        }
        String id = startRing(6);
        JsonNode d = awaitEnd(id);
        assertEquals("SUCCEEDED", d.path("state").asText(), d + "\n" + lab.logs());
    }

    @Test
    void forgedRankEventsDoNotChangeALegitimateRun() throws Exception {
        String id = startRing(6);
        // suppose the attacker learnt the run's id (reads need a credential off loopback); its domain ID and the domain's
        // token, which proves rank events (RankEventPost), it has not: it makes up both
        Map<String, Object> forged = Map.of("domainId", "guessed", "rank", 0, "seq", 0, "type", "STATE", "state", "FAILED",
                "message", "forged by the attacker");
        Http.Answer a = Http.postRankEvents(engineFromAttacker() + "/api/runs/" + id + "/ranks/events", DomainToken.generate(),
                "guessed", List.of(forged));
        assertTrue(a.status() >= 400 && a.status() < 500, a.status() + " " + a.body());
        JsonNode d = awaitEnd(id);
        assertEquals("SUCCEEDED", d.path("state").asText(), d + "\n" + lab.logs());
        assertEquals(Set.of("h1", "h2", "h3"), lab.placement(id));
        assertTrue(!lab.run(id).toString().contains("forged by the attacker"));
    }

    @Test
    void aHandshakeThatNeverFinishesIsDroppedWithinTheBound() throws Exception {
        NetworkLab.Host h2 = lab.host("h2");
        try (Socket s = lab.attacker().connect(h2.node().address(), h2.binaryPort())) {
            s.setSoTimeout(15_000);
            long t0 = System.nanoTime();
            s.getOutputStream().write(new byte[] {5, 40}); // AUTH, half a length, then nothing
            s.getOutputStream().flush();
            try {
                while (s.getInputStream().read() >= 0) {
                    // the HELLO: read on until the host closes
                }
            } catch (java.io.IOException reset) {
                // a reset is a close too
            }
            long ms = (System.nanoTime() - t0) / 1_000_000;
            // the default handshake bound is 5 s
            assertTrue(ms >= 4_500 && ms < 8_000, "slow handshake closed after " + ms + " ms");
        }
    }

    static String startRing(int ranks) throws Exception {
        return startRing(ranks, Map.of("rounds", 5));
    }

    static String startRing(int ranks, Map<String, Object> params) throws Exception {
        Http.Answer a = Http.post(lab.engineUrl(lab.engineNode()) + "/api/runs", lab.token(), ringPlan(ranks, params));
        assertEquals(201, a.status(), a.body());
        return a.json().get("id").asText();
    }

    static JsonNode awaitEnd(String id) throws Exception {
        return Await.runEnds(Duration.ofSeconds(60), () -> lab.run(id), lab::logs);
    }
}
