package org.mpfl.engine.sites;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.DataOutputStream;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.mpfl.engine.e2e.EverythingDocument;
import org.mpfl.engine.e2e.TestActivities;
import org.mpfl.engine.e2e.WaitingProgram;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.HostCredential;
import org.mpfl.protocol.relay.RelayWire;
import org.mpfl.testing.Await;
import org.mpfl.testing.Http;
import org.mpfl.testing.ProcFiles;
import org.mpfl.testing.StartsProcesses;
import org.mpfl.testing.lab.LabNode;
import org.mpfl.testing.lab.NetworkLab;

/**
 * Across sites ({@link NetworkLab.Builder#sites}): two sites of two hosts, each site behind a NAT
 * gateway that admits no connection from outside, the engine, a relay and an attacker on the WAN
 * between them, everything over TLS. Before each cross-site run the lab asserts that no host of one
 * site can open a connection to a host of the other, so a run whose ranks span both sites can only
 * have exchanged its messages through the relay. The faults come last (they take the relay and a
 * site away).
 */
@Timeout(900)
@StartsProcesses
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CrossSiteRelayTest {
    static NetworkLab lab;
    static Path docs;

    @BeforeAll
    static void start() throws Exception {
        lab = NetworkLab.builder().sites(2, 2).capacity(1).tls().hostService("wait", WaitingProgram.class)
                .engineArgs("--engine-loss-grace", "0").start();
        docs = Files.createTempDirectory("mpfl-sites-");
        try (InputStream in = CrossSiteRelayTest.class.getResourceAsStream("/mpfl/everything.mpfl.xml")) {
            Files.write(docs.resolve("everything.mpfl.xml"), in.readAllBytes());
        }
        TestActivities.jar(Files.createDirectories(docs.resolve("lib")).resolve("activities.jar"));
    }

    @AfterAll
    static void stop() throws Exception {
        if (lab != null) {
            lab.close();
        }
    }

    static JsonNode ring(int ranks) throws Exception {
        return lab.runDocument(Path.of("..", "samples", "ring", "ring.mpfl.xml"), "ranks=" + ranks);
    }

    static void assertSpansSites(String runId) throws Exception {
        Set<String> sites = new TreeSet<>();
        lab.placement(runId).forEach(h -> sites.add(h.substring(0, 2)));
        assertEquals(Set.of("s1", "s2"), sites, "the run must span both sites");
    }

    @Test
    @Order(1)
    void ringRunsAcrossTwoSitesThroughTheRelayDirectWithinASite() throws Exception {
        lab.assertSitesIsolated();
        JsonNode r = ring(8);
        assertEquals("SUCCEEDED", r.path("state").asText(), r + "\n" + lab.logs());
        assertEquals(28, r.at("/outputs/token/0").asInt(), r.toString());
        String id = r.path("run").asText();
        assertSpansSites(id);
        // the methods per pair in the run record: direct inside a site, through the relay across
        JsonNode connections = lab.run(id).path("connections");
        int hosts = lab.placement(id).size();
        assertEquals(hosts * (hosts - 1), connections.size(), "one entry per ordered pair of hosts: " + connections);
        for (JsonNode c : connections) {
            boolean across = !c.path("from").asText().substring(0, 2).equals(c.path("to").asText().substring(0, 2));
            assertEquals(across ? "relay" : "direct", c.path("method").asText(), c.toString());
            if (across) {
                assertEquals("relay via rly: host " + c.path("to").asText() + " in site " + c.path("to").asText().substring(0, 2)
                        + " accepts no inbound connections", c.path("why").asText());
            }
        }
        JsonNode relays = lab.adminGet("/api/registry/relays").json();
        assertEquals("rly", relays.path(0).path("relayId").asText(), relays.toString());
        assertTrue(lab.adminGet("/api/registry/hosts").body().contains("\"relay\":\"" + lab.relayAddress() + "\""));
    }

    @Test
    @Order(2)
    void everyCollectiveRunsAcrossTheSites() throws Exception {
        lab.assertSitesIsolated();
        JsonNode r = lab.runDocument(docs.resolve("everything.mpfl.xml"), EverythingDocument.PARAMS);
        assertEquals("SUCCEEDED", r.path("state").asText(), r + "\n" + lab.logs());
        EverythingDocument.assertOutputs(r.get("outputs"));
        assertSpansSites(r.path("run").asText());
    }

    /**
     * Attacks from the WAN while a legitimate cross-site run goes on: registering at the relay without
     * a credential, dialling a host with a credential but without the domain's token, 2 GB frames
     * announced, and a capture of everything the relay's interface carries — no plaintext of the
     * relayed SOAP (the engine's run request, the ranks' messages) in it.
     */
    @Test
    @Order(3)
    void attacksFromTheWanAreRefusedWhileARunSucceeds() throws Exception {
        lab.assertSitesIsolated();
        LabNode atk = lab.attacker();
        String relayHost = lab.relayAddress().substring(0, lab.relayAddress().indexOf(':'));
        int relayPort = Integer.parseInt(lab.relayAddress().substring(lab.relayAddress().indexOf(':') + 1));
        Path capture = lab.directory().resolve("relay-capture.bin");
        Process capturing = startCapture(lab.relayNode(), capture, 60);
        CompletableFuture<JsonNode> legit = CompletableFuture.supplyAsync(() -> {
            try {
                return ring(8);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        String target = lab.host("s2h1").node().address() + ":" + lab.host("s2h1").soapPort();

        // 1. registering as s2h1 without its credential: refused, and s2h1 stays registered (the run below succeeds)
        Map<String, String> reg = new LinkedHashMap<>();
        reg.put("op", "register");
        reg.put("host", "s2h1");
        reg.put("proof", "forged");
        reg.put("addresses", target);
        assertTrue(exchange(atk, relayHost, relayPort, reg).get("error").startsWith("not authenticated"));

        // 2. a dial by an enrolled host that is not in the domain: authenticated, but it holds no token of it
        HostCredential intruder = HostCredential.parse(lab.issueCredential("intruder"), "intruder");
        Map<String, String> dial = new LinkedHashMap<>();
        dial.put("op", "dial");
        dial.put("from", intruder.hostId());
        dial.put("target", target);
        dial.put("domain", DomainToken.relayTag("a-domain-it-guessed"));
        dial.put("splice", "guessed");
        Map<String, String> refused = exchangeWithProof(atk, relayHost, relayPort, dial, intruder);
        assertTrue(refused.containsKey("error") && !refused.containsKey("ok"), refused.toString());
        dial.remove("proof");
        dial.put("from", "engine");
        dial.put("proof", "forged");
        assertTrue(exchange(atk, relayHost, relayPort, dial).get("error").startsWith("not authenticated"));

        // 3. 2 GB frames announced, 100 times: each refused before allocation; the relay's memory stays put
        long rssBefore = rssKb(lab.relayProcess());
        for (int i = 0; i < 100; i++) {
            try (Socket s = atk.connect(relayHost, relayPort)) {
                s.setSoTimeout(10_000);
                DataOutputStream out = new DataOutputStream(s.getOutputStream());
                out.write("MPFLRLY1".getBytes(StandardCharsets.US_ASCII));
                RelayWire.read(s.getInputStream()); // greeting
                out.writeInt(Integer.MAX_VALUE);
                out.flush();
                assertEquals(-1, s.getInputStream().read(), "the relay must close a connection announcing 2 GB");
            }
        }
        long growthMb = (rssKb(lab.relayProcess()) - rssBefore) / 1024;
        assertTrue(growthMb < 64, "the relay grew by " + growthMb + " MB");

        JsonNode r = legit.get(400, java.util.concurrent.TimeUnit.SECONDS);
        assertEquals("SUCCEEDED", r.path("state").asText(), r + "\n" + lab.logs());
        assertEquals(28, r.at("/outputs/token/0").asInt(), r.toString());
        assertSpansSites(r.path("run").asText());

        // 4. what the relay's interface carried: the relay's own headers in the clear, the hosts' SOAP not
        capturing.destroy();
        capturing.waitFor();
        byte[] captured = Files.readAllBytes(capture);
        String text = new String(captured, StandardCharsets.ISO_8859_1);
        assertTrue(text.contains("op=dial"), "the capture saw no relayed connection (" + captured.length + " bytes)");
        for (String plaintext : List.of("Envelope", "/axis2/", "mpiws", "HTTP/1.1")) {
            assertFalse(text.contains(plaintext), "'" + plaintext + "' crossed the relay in the clear");
        }
    }

    /** A relay killed mid-run: the run fails naming the relay, within 10 s. */
    @Test
    @Order(10)
    void relayKilledMidRunFailsTheRunNamingIt() throws Exception {
        lab.assertSitesIsolated();
        String id = startWaitingRun(4);
        Await.runIn(Duration.ofSeconds(90), "RUNNING", () -> lab.run(id));
        assertSpansSites(id);
        long t0 = System.nanoTime();
        lab.relayProcess().destroyForcibly();
        JsonNode d = Await.runEnds(Duration.ofSeconds(30), () -> lab.run(id), lab::logs);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertEquals("FAILED", d.path("state").asText(), d.toString());
        assertTrue(d.path("error").path("message").asText().contains("relay rly"), d.path("error").toString());
        // the issue's bound is 10 s; the watch breaks at once on a killed relay, so 10 s holds on a loaded machine
        assertTrue(ms <= 10_000, "the run failed " + ms + " ms after the relay was killed");
    }

    /** Site 2's gateway cut off the WAN: the run fails naming hosts of site 2. */
    @Test
    @Order(5)
    void gatewayCutFailsTheRunNamingTheUnreachableHosts() throws Exception {
        lab.assertSitesIsolated();
        String id = startWaitingRun(4);
        Await.runIn(Duration.ofSeconds(90), "RUNNING", () -> lab.run(id));
        assertSpansSites(id);
        LabNode gw2 = lab.gateway(2);
        long t0 = System.nanoTime();
        gw2.linkDown();
        try {
            JsonNode d = Await.runEnds(Duration.ofSeconds(60), () -> lab.run(id), lab::logs);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertEquals("FAILED", d.path("state").asText(), d.toString());
            String message = d.path("error").path("message").asText();
            assertTrue(message.contains("s2h1") || message.contains("s2h2"), message);
            System.out.println("gateway cut: run FAILED " + ms + " ms after the cut: " + message);
        } finally {
            gw2.linkUp();
        }
        lab.awaitRegistered(List.of("s2h1", "s2h2"));
    }

    static String startWaitingRun(int ranks) throws Exception {
        Http.Answer a = lab.http().post(lab.engineUrl(lab.engineNode()) + "/api/runs", lab.token(), Map.of("params", Map.of(),
                "plan", Map.of("workflow", "wait", "processes", List.of(Map.of("name", "wait", "service", "wait", "ranks", ranks)))));
        assertEquals(201, a.status(), a.body());
        return a.json().get("id").asText();
    }

    /** One request to the relay from {@code from}: the relay's answer frame. */
    static Map<String, String> exchange(LabNode from, String host, int port, Map<String, String> request) throws Exception {
        return exchangeWithProof(from, host, port, request, null);
    }

    static Map<String, String> exchangeWithProof(LabNode from, String host, int port, Map<String, String> request,
                                                 HostCredential proveAs) throws Exception {
        try (Socket s = from.connect(host, port)) {
            s.setSoTimeout(30_000);
            s.getOutputStream().write("MPFLRLY1".getBytes(StandardCharsets.US_ASCII));
            Map<String, String> greeting = RelayWire.read(s.getInputStream());
            Map<String, String> req = new LinkedHashMap<>(request);
            if (proveAs != null) {
                req.put("proof", RelayWire.hostProof(proveAs.engineKey(), greeting.get("relay"), greeting.get("nonce"),
                        proveAs.hostId()));
            }
            RelayWire.write(s.getOutputStream(), req);
            return RelayWire.read(s.getInputStream());
        }
    }

    static long rssKb(Process p) throws Exception {
        for (String line : ProcFiles.read(p, "status").split("\n")) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        throw new AssertionError("no VmRSS for " + p.pid());
    }

    /** Every frame on the node's interfaces for up to {@code seconds}, raw, into {@code file} (AF_PACKET, root). */
    static Process startCapture(LabNode node, Path file, int seconds) throws Exception {
        String script = "import socket,sys,time\n"
                + "s=socket.socket(socket.AF_PACKET,socket.SOCK_RAW,socket.htons(3))\n"
                + "s.settimeout(0.5)\n"
                + "f=open(sys.argv[1],'wb')\n"
                + "end=time.time()+float(sys.argv[2])\n"
                + "print('capturing',flush=True)\n"
                + "while time.time()<end:\n"
                + "  try:\n"
                + "    f.write(s.recv(65535)); f.flush()\n"
                + "  except socket.timeout:\n"
                + "    pass\n";
        List<String> cmd = new ArrayList<>(node.inside());
        cmd.addAll(List.of("python3", "-c", script, file.toString(), Integer.toString(seconds)));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String first = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream())).readLine();
        assertEquals("capturing", first, "the capture did not start");
        return p;
    }
}
