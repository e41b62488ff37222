package org.mpfl.engine.sites;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mpfl.engine.sites.CrossSites.assertSpansSites;
import static org.mpfl.engine.sites.CrossSites.ring;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.DataOutputStream;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.HostCredential;
import org.mpfl.protocol.relay.RelayWire;
import org.mpfl.testing.ProcFiles;
import org.mpfl.testing.StartsProcesses;
import org.mpfl.testing.lab.LabNode;
import org.mpfl.testing.lab.NetworkLab;

/**
 * Across sites ({@link NetworkLab.Builder#sites}): two sites of two hosts, each site behind a NAT
 * gateway that admits no connection from outside, the engine, a relay and an attacker on the WAN
 * between them, everything over TLS. Before each cross-site run the lab asserts that no host of one
 * site can open a connection to a host of the other, so a run whose ranks span both sites can only
 * have exchanged its messages through the relay. heat2d across the sites and the faults (a killed
 * relay, a cut gateway) are {@link CrossSiteFaultsTest}'s, in a lab of its own so that the two
 * classes run side by side; a host on the WAN reaching a site by reverse connections is
 * {@link SiteAdmissionTest}'s.
 */
@Timeout(900)
@StartsProcesses
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CrossSiteRelayTest {
    static NetworkLab lab;
    static Path docs;

    @BeforeAll
    static void start() throws Exception {
        lab = CrossSites.startLab();
        docs = Files.createTempDirectory("mpfl-sites-");
        try (InputStream in = CrossSiteRelayTest.class.getResourceAsStream("/mpfl/everything.mpfl.xml")) {
            Files.write(docs.resolve("everything.mpfl.xml"), in.readAllBytes());
        }
        TestActivities.jar(Files.createDirectories(docs.resolve("lib")).resolve("activities.jar"));
    }

    @AfterAll
    static void stop() {
        CrossSites.close(lab, docs);
    }

    @Test
    @Order(1)
    void ringRunsAcrossTwoSitesThroughTheRelayDirectWithinASite() throws Exception {
        lab.assertSitesIsolated();
        JsonNode r = ring(lab, 8);
        assertEquals("SUCCEEDED", r.path("state").asText(), r + "\n" + lab.logs());
        assertEquals(28, r.at("/outputs/token/0").asInt(), r.toString());
        String id = r.path("run").asText();
        assertSpansSites(lab, id);
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
        assertSpansSites(lab, r.path("run").asText());
    }

    /**
     * Attacks from the WAN while a legitimate cross-site run goes on: registering at the relay without
     * a credential, registering another host's address with a credential, dialling a host with a credential but without the domain's token, 2 GB frames
     * announced, and a capture of everything the relay's interface carries — no plaintext of the
     * relayed SOAP (the engine's run request, the ranks' messages) in it.
     */
    @Test
    @Order(3)
    void attacksFromTheWanAreRefusedWhileARunSucceeds() throws Exception {
        lab.assertSitesIsolated();
        Path capture = lab.directory().resolve("relay-capture.bin");
        Process capturing = startCapture(lab.relayNode(), capture, 60);
        CompletableFuture<JsonNode> legit = CompletableFuture.supplyAsync(() -> {
            try {
                return ring(lab, 8);
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
        assertTrue(exchange(reg).get("error").startsWith("not authenticated"));

        // 2. an enrolled host (or one whose credential was stolen) registering s2h1's address to take the dials meant for
        // it: refused, since it did not announce this relay (nor that address: RelayServerTest); s2h1 keeps its
        // registration (the run below succeeds)
        HostCredential intruder = HostCredential.parse(lab.issueCredential("intruder"), "intruder");
        Map<String, String> steal = new LinkedHashMap<>();
        steal.put("op", "register");
        steal.put("host", intruder.hostId());
        steal.put("addresses", target);
        String stolen = exchangeWithProof(steal, intruder).get("error");
        assertTrue(stolen.startsWith("host intruder may not register at relay rly at ")
                && stolen.contains(": it announced no relay to the engine"), stolen);

        // 3. a dial by an enrolled host that is not in the domain: authenticated, but it holds no token of it
        Map<String, String> dial = new LinkedHashMap<>();
        dial.put("op", "dial");
        dial.put("from", intruder.hostId());
        dial.put("target", target);
        dial.put("domain", DomainToken.relayTag("a-domain-it-guessed"));
        dial.put("splice", "guessed");
        Map<String, String> refused = exchangeWithProof(dial, intruder);
        assertTrue(refused.containsKey("error") && !refused.containsKey("ok"), refused.toString());
        dial.remove("proof");
        dial.put("from", "engine");
        dial.put("proof", "forged");
        assertTrue(exchange(dial).get("error").startsWith("not authenticated"));

        // 4. 2 GB frames announced, 100 times: each refused before allocation; the relay's memory stays put
        long rssBefore = rssKb(lab.relayProcess());
        for (int i = 0; i < 100; i++) {
            try (Socket s = CrossSites.attackerToRelay(lab)) {
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
        assertSpansSites(lab, r.path("run").asText());

        // 5. what the relay's interface carried: the relay's own headers in the clear, the hosts' SOAP not
        capturing.destroy();
        capturing.waitFor();
        byte[] captured = Files.readAllBytes(capture);
        String text = new String(captured, StandardCharsets.ISO_8859_1);
        assertTrue(text.contains("op=dial"), "the capture saw no relayed connection (" + captured.length + " bytes)");
        for (String plaintext : List.of("Envelope", "/axis2/", "mpiws", "HTTP/1.1")) {
            assertFalse(text.contains(plaintext), "'" + plaintext + "' crossed the relay in the clear");
        }
    }

    /** One request to the relay from the attacker: the relay's answer frame. */
    static Map<String, String> exchange(Map<String, String> request) throws Exception {
        return exchangeWithProof(request, null);
    }

    static Map<String, String> exchangeWithProof(Map<String, String> request, HostCredential proveAs) throws Exception {
        try (Socket s = CrossSites.attackerToRelay(lab)) {
            s.setSoTimeout(30_000);
            s.getOutputStream().write("MPFLRLY1".getBytes(StandardCharsets.US_ASCII));
            Map<String, String> greeting = RelayWire.read(s.getInputStream());
            Map<String, String> req = new LinkedHashMap<>(request);
            if (proveAs != null) {
                req.put("proof", RelayWire.hostProof(proveAs.engineKey(), req.getOrDefault("op", ""), greeting.get("relay"), greeting.get("nonce"),
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
