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
    static Path heat2d;
    /** heat2d's params for the runs across sites: several hundred iterations, a checkpoint every 5. */
    static final String[] HEAT2D = {"rows=24", "columns=24", "maxIter=3000", "tolerance=1e-3", "checkpointEvery=5",
        "progressEvery=10"};
    static JsonNode heat2dAcrossSites;

    @BeforeAll
    static void start() throws Exception {
        lab = NetworkLab.builder().sites(2, 2).capacity(1).tls().hostService("wait", WaitingProgram.class)
                .engineArgs("--engine-loss-grace", "0").start();
        docs = Files.createTempDirectory("mpfl-sites-");
        try (InputStream in = CrossSiteRelayTest.class.getResourceAsStream("/mpfl/everything.mpfl.xml")) {
            Files.write(docs.resolve("everything.mpfl.xml"), in.readAllBytes());
        }
        TestActivities.jar(Files.createDirectories(docs.resolve("lib")).resolve("activities.jar"));
        heat2d = heat2dDocument(docs);
    }

    /**
     * The heat2d sample as a user would run it, its activity code compiled from the samples module's
     * sources into {@code lib/heat2d.jar} next to the document (the samples jar is built after this module).
     */
    static Path heat2dDocument(Path dir) throws Exception {
        Path sources = Path.of("..", "samples", "src", "main", "java");
        Map<String, String> classes = new LinkedHashMap<>();
        for (String c : List.of("org/mpfl/samples/heat2d/SetupPlate", "org/mpfl/samples/heat2d/JacobiSweep",
                "org/mpfl/samples/heat2d/Plate", "org/mpfl/samples/common/Inputs")) {
            classes.put(c, Files.readString(sources.resolve(c + ".java")));
        }
        TestActivities.jar(dir.resolve("lib").resolve("heat2d.jar"), classes);
        String doc = Files.readString(Path.of("..", "samples", "heat2d", "heat2d.mpfl.xml"));
        assertTrue(doc.contains("<library path=\"../target/mpfl-samples.jar\"/>"), "heat2d's library element changed");
        Path out = dir.resolve("heat2d.mpfl.xml");
        Files.writeString(out, doc.replace("<library path=\"../target/mpfl-samples.jar\"/>", "<library path=\"lib/heat2d.jar\"/>"));
        return out;
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

    /** Site 2's gateway cut off the WAN: the run fails naming every host of site 2, and no other. */
    @Test
    @Order(8)
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
            // both hosts of the cut site are named, though their heartbeats time out one after the other
            assertTrue(message.contains("s2h1") && message.contains("s2h2"), message);
            assertFalse(message.contains("s1h1") || message.contains("s1h2"), "site 1 is still reachable: " + message);
            System.out.println("gateway cut: run FAILED " + ms + " ms after the cut: " + message);
        } finally {
            gw2.linkUp();
        }
        lab.awaitRegistered(List.of("s2h1", "s2h2"));
    }

    /**
     * A host on the WAN (it accepts inbound connections, holds no relay connection) and site 1 (behind
     * NAT, reached through the relay): from the WAN host to site 1 only a reverse connection works, so
     * that pair uses one — site 1's host connects out, asked through the relay — while site 1 reaches
     * the WAN host directly. Pairs where neither side accepts inbound connections (site 1 and site 2)
     * use the relay: {@link #ringRunsAcrossTwoSitesThroughTheRelayDirectWithinASite}.
     */
    @Test
    @Order(4)
    void aHostOnTheWanReachesANattedSiteByReverseConnections() throws Exception {
        lab.assertSitesIsolated();
        NetworkLab.Host wan = lab.addHost("w1", 40);
        try {
            NetworkLab.Host s1h1 = lab.host("s1h1");
            assertFalse(lab.connects(wan, s1h1), "the WAN host must not reach site 1 directly");
            assertTrue(lab.connects(s1h1, wan), "site 1 must reach the WAN host");
            int ranks = 3;
            JsonNode r = lab.runDocument(Path.of("..", "samples", "ring", "ring.mpfl.xml"), List.of("--sites", "default,s1"),
                    "ranks=" + ranks);
            assertEquals("SUCCEEDED", r.path("state").asText(), r + "\n" + lab.logs());
            assertEquals(ranks * (ranks - 1) / 2, r.at("/outputs/token/0").asInt(), r.toString());
            String id = r.path("run").asText();
            assertEquals(Set.of("w1", "s1h1", "s1h2"), lab.placement(id));
            JsonNode connections = lab.run(id).path("connections");
            assertEquals(6, connections.size(), connections.toString());
            for (JsonNode c : connections) {
                String from = c.path("from").asText();
                String to = c.path("to").asText();
                String expected = from.equals("w1") ? "reverse" : "direct";
                assertEquals(expected, c.path("method").asText(), c.toString());
                if (from.equals("w1")) {
                    assertEquals("rly", c.path("relay").asText(), c.toString());
                    assertTrue(c.path("why").asText().contains(to + " connects out to w1"), c.toString());
                }
            }
            // what w1 did (not only what the engine expected): reverse connections to site 1 (SOAP or binary, as the
            // domain's transport chose), no fallback to a splice
            String log = Files.readString(wan.process().log());
            assertTrue(java.util.regex.Pattern.compile("connections to 10\\.77\\.1\\.1[12]:\\d+: reverse").matcher(log).find(),
                    "w1 made no reverse connection to site 1:\n" + log);
            assertFalse(log.contains("a reverse connection from"), "a reverse connection fell back to the relay:\n" + log);
        } finally {
            lab.removeHost(wan);
        }
    }

    /**
     * heat2d across 2 sites × 2 hosts through the relay ends exactly as on one site: Jacobi sweeps
     * and a max-allreduce give the same doubles however the plate is split over ranks.
     */
    @Test
    @Order(5)
    void heat2dAcrossSitesEqualsARunOnOneSite() throws Exception {
        lab.assertSitesIsolated();
        JsonNode oneSite = lab.runDocument(heat2d, concat(HEAT2D, "ranks=2"));
        assertEquals("SUCCEEDED", oneSite.path("state").asText(), oneSite + "\n" + lab.logs());
        Set<String> sites = new TreeSet<>();
        lab.placement(oneSite.path("run").asText()).forEach(h -> sites.add(h.substring(0, 2)));
        assertEquals(1, sites.size(), "the reference run packs into one site: " + sites);
        JsonNode across = heat2dAcrossSites();
        assertTrue(across.at("/outputs/converged/0").asBoolean(), across.toString());
        assertEquals(oneSite.get("outputs"), across.get("outputs"));
    }

    /**
     * A checkpointed heat2d across the sites, cancelled after some checkpoints and resumed: the new
     * attempt goes on from the last checkpoint (through the relay again) and ends as the undisturbed run.
     */
    @Test
    @Order(6)
    void aCheckpointedRunAcrossSitesResumesFromItsCheckpoint() throws Exception {
        lab.assertSitesIsolated();
        JsonNode undisturbed = heat2dAcrossSites();
        CompletableFuture<JsonNode> first = startHeat2d(List.of());
        String id = awaitCheckpoints(3, first);
        Http.Answer cancel = lab.http().post(lab.engineUrl(lab.engineNode()) + "/api/runs/" + id + "/cancel", lab.token(), Map.of());
        assertEquals(200, cancel.status(), cancel.body());
        JsonNode cancelled = first.get(200, java.util.concurrent.TimeUnit.SECONDS);
        assertEquals("CANCELLED", cancelled.path("state").asText(), cancelled.toString());
        Http.Answer resume = lab.http().post(lab.engineUrl(lab.engineNode()) + "/api/runs/" + id + "/resume", lab.token(), Map.of());
        assertTrue(resume.status() / 100 == 2, resume.status() + " " + resume.body());
        JsonNode done = Await.runEnds(Duration.ofSeconds(300), () -> lab.run(id), lab::logs);
        assertEquals("SUCCEEDED", done.path("state").asText(), done + "\n" + lab.logs());
        assertTrue(done.at("/attemptLog/1/resumedFrom").asLong(0) >= 3, "the second attempt resumed from a checkpoint: " + done);
        assertSpansSites(id);
        assertEquals(undisturbed.get("outputs"), done.get("outputs"));
    }

    /**
     * A relay killed mid-run of a checkpointed heat2d with {@code --restarts 1}: the attempt is given up
     * naming the relay, the restart waits for the relay to be back (started again here once the fault is
     * on record) and resumes from the last checkpoint through it, ending as the undisturbed run.
     */
    @Test
    @Order(7) // before the gateway cut: the cut site's relay links take up to 45 s to be noticed dead and renewed
    void relayKilledMidRunWithRestartsResumesFromTheLastCheckpoint() throws Exception {
        lab.assertSitesIsolated();
        JsonNode undisturbed = heat2dAcrossSites();
        CompletableFuture<JsonNode> summary = startHeat2d(List.of("--restarts", "1"));
        String id = awaitCheckpoints(3, summary);
        Process relay = lab.relayProcess();
        relay.destroyForcibly();
        relay.waitFor();
        Await.until(Duration.ofSeconds(30), "the relay's loss made a restart", () -> lab.run(id),
                d -> d.at("/restarts/used").asInt() == 1);
        lab.restartRelay();
        JsonNode done = Await.runEnds(Duration.ofSeconds(300), () -> lab.run(id), lab::logs);
        assertEquals("SUCCEEDED", done.path("state").asText(), done + "\n" + lab.logs());
        assertTrue(done.at("/attemptLog/1/cause").asText().contains("relay rly"), done.at("/attemptLog").toString());
        assertTrue(done.at("/attemptLog/1/resumedFrom").asLong(0) >= 3, "resumed from a checkpoint: " + done.at("/attemptLog"));
        assertSpansSites(id);
        assertEquals(undisturbed.get("outputs"), done.get("outputs"));
        summary.get(200, java.util.concurrent.TimeUnit.SECONDS);
    }

    /** {@code mpflc run} of heat2d across the sites ({@link #HEAT2D}, 4 ranks) in the background. */
    static CompletableFuture<JsonNode> startHeat2d(List<String> options) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return lab.runDocument(heat2d, options, concat(HEAT2D, "ranks=4"));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /**
     * The id of the running heat2d run, once it has taken {@code n} checkpoints; it spans both sites.
     * A failure says how {@code mpflc run} ended if it did.
     */
    static String awaitCheckpoints(int n, CompletableFuture<JsonNode> summary) throws Exception {
        JsonNode running = Await.until(Duration.ofSeconds(180), () -> "a heat2d run across the sites with " + n
                + " checkpoints (mpflc run: " + (summary.isDone() ? summary.handle((v, e) -> v != null ? v.toString() : String.valueOf(e)).join() : "still running") + ")\n" + lab.logs(), () -> {
            for (JsonNode run : lab.adminGet("/api/runs?state=RUNNING&workflow=heat2d").json()) {
                JsonNode d = lab.run(run.path("id").asText());
                return d.path("checkpointsTaken").asInt() >= n ? d : null;
            }
            return null;
        }, d -> d != null);
        String id = running.path("id").asText();
        assertSpansSites(id);
        return id;
    }

    /** The undisturbed heat2d run across both sites (once per class: the reference of two tests). */
    static synchronized JsonNode heat2dAcrossSites() throws Exception {
        if (heat2dAcrossSites == null) {
            JsonNode r = lab.runDocument(heat2d, concat(HEAT2D, "ranks=4"));
            assertEquals("SUCCEEDED", r.path("state").asText(), r + "\n" + lab.logs());
            assertSpansSites(r.path("run").asText());
            heat2dAcrossSites = r;
        }
        return heat2dAcrossSites;
    }

    static String[] concat(String[] params, String... more) {
        List<String> all = new ArrayList<>(List.of(params));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
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
