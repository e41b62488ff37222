package org.mpfl.war;

import org.mpfl.ir.cli.Commands;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.json.Json;
import org.mpfl.engine.local.LocalCluster;
import org.mpfl.engine.registry.HostInfo;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.Endpoint;
import org.mpfl.protocol.HostCredential;
import org.mpfl.protocol.MpiwsClient;
import org.mpfl.protocol.MpiwsNames;
import org.mpfl.protocol.RunRequest;
import org.mpfl.protocol.SoapFault;
import org.mpfl.ir.files.FileTrees;
import org.mpfl.testing.StartsProcesses;
import org.mpfl.testing.attack.EndlessElement;

/**
 * The MPIWS web application ({@code target/axis2.war}, built at package, before the full tier) in a real Tomcat 10 —
 * Debian's {@code tomcat10} from {@code /usr/share/tomcat10}, run as a child JVM with its own
 * {@code CATALINA_BASE} in a temporary directory (a free HTTP port, no shutdown port) — joins an
 * engine as a host, next to an {@code mpflc host} process: the engine deploys the generated service
 * into Tomcat through the authenticated deploy operation, and a ring runs with ranks in both, its
 * messages crossing between them (into Tomcat through its {@code AxisServlet}: the Tomcat host offers
 * no binary channel here). The attacks: a deploy without or with a wrong host key, a {@code run}
 * without the engine's key, and a store with a bad proof or an oversized announced length are all
 * refused, and nothing is deployed or started; a {@code status} with an endless element from a caller without any
 * credential is cut off after {@code mpfl.host.unprovenBodyBytes}, while a proved store larger than that is taken.
 * The shipped zeep client reads a rank's status in Tomcat
 * from the WSDL Tomcat serves and aborts its domain. A second Tomcat given the first one's credential is refused as a
 * second live process of that host, says so in one ERROR line and stops asking the engine.
 */
@Timeout(300)
@StartsProcesses
class TomcatHostTest {
    static final Path TOMCAT_HOME = Path.of("/usr/share/tomcat10");
    static final Path WAR = Path.of("target/axis2.war").toAbsolutePath();
    private static final String RING = """
            <?xml version="1.0" encoding="UTF-8"?>
            <workflow xmlns="urn:mpfl:1.0" name="tomcatring">
              <param name="ranks" type="int" default="4"/>
              <process name="node" ranks="ranks" service="TomcatRing">
                <var name="next" type="int" init="(rank + 1) % size"/>
                <var name="previous" type="int" init="(rank + size - 1) % size"/>
                <var name="token" type="int"/>
                <if test="rank == 0">
                  <send to="next" data="0"/>
                  <receive from="previous" into="token"/>
                  <output name="token" value="token"/>
                <else>
                  <receive from="previous" into="token"/>
                  <send to="next" data="token + rank"/>
                </else>
                </if>
              </process>
            </workflow>
            """;

    static Path work;
    static LocalCluster cluster;
    static Process tomcat;
    static Path tomcatLog;
    static String tomcatUrl;
    static HostCredential tomcatCredential;

    @BeforeAll
    static void start() throws Exception {
        assertTrue(Files.isRegularFile(TOMCAT_HOME.resolve("bin/bootstrap.jar")),
                "Debian's tomcat10 is needed in " + TOMCAT_HOME + " (.ci/run installs it: apt-get install tomcat10)");
        assertTrue(Files.isRegularFile(WAR), WAR + " is built in process-test-classes");
        work = Files.createTempDirectory("mpfl-tomcat-");
        cluster = LocalCluster.start(new EngineConfig().port(0).dataDir(work.resolve("engine")), 1, Duration.ofSeconds(90));
        tomcatCredential = cluster.engine().issueHostCredential(null);
        int port = freePort();
        tomcatUrl = "http://127.0.0.1:" + port;
        Path base = catalinaBase(work.resolve("catalina-base"), tomcatCredential, port);
        tomcatLog = base.resolve("logs/console.log");
        tomcat = startTomcat(base, tomcatLog);
        awaitHosts(2, Duration.ofSeconds(120));
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** Tomcat as a child JVM on the CATALINA_BASE {@code base}, its output in {@code log}. */
    static Process startTomcat(Path base, Path log) throws IOException {
        List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx384m",
                "-cp", TOMCAT_HOME.resolve("bin/bootstrap.jar") + ":" + TOMCAT_HOME.resolve("bin/tomcat-juli.jar"),
                "-Dcatalina.home=" + TOMCAT_HOME, "-Dcatalina.base=" + base, "-Djava.io.tmpdir=" + base.resolve("temp"),
                "-Djava.util.logging.manager=org.apache.juli.ClassLoaderLogManager",
                "-Djava.util.logging.config.file=" + base.resolve("conf/logging.properties"),
                "org.apache.catalina.startup.Bootstrap", "start");
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    /** Stops a Tomcat: its shutdown (the web application leaves the engine), else killed. */
    static void stopTomcat(Process p) throws InterruptedException {
        p.destroy();
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** A private CATALINA_BASE: server.xml on {@code port} without shutdown port, the WAR, the host's settings. */
    static Path catalinaBase(Path base, HostCredential credential, int port) throws IOException {
        for (String d : List.of("conf", "logs", "temp", "webapps", "work")) {
            Files.createDirectories(base.resolve(d));
        }
        String url = "http://127.0.0.1:" + port;
        Files.writeString(base.resolve("conf/server.xml"), """
                <?xml version="1.0" encoding="UTF-8"?>
                <Server port="-1" shutdown="SHUTDOWN">
                  <Service name="Catalina">
                    <Connector port="%d" address="127.0.0.1" protocol="HTTP/1.1" connectionTimeout="20000"/>
                    <Engine name="Catalina" defaultHost="localhost">
                      <Host name="localhost" appBase="webapps" unpackWARs="true" autoDeploy="false"/>
                    </Engine>
                  </Service>
                </Server>
                """.formatted(port));
        Files.copy(TOMCAT_HOME.resolve("etc/web.xml"), base.resolve("conf/web.xml"));
        Files.writeString(base.resolve("conf/logging.properties"), """
                handlers = java.util.logging.ConsoleHandler
                .level = INFO
                java.util.logging.ConsoleHandler.level = INFO
                java.util.logging.ConsoleHandler.formatter = org.apache.juli.OneLineFormatter
                """);
        Files.copy(WAR, base.resolve("webapps/axis2.war"));
        Files.writeString(base.resolve("conf/" + WebAppSettings.PROPERTIES_FILE),
                WebAppSettings.BASE_URL + "=" + url + "\n" + WebAppSettings.BINARY + "=false\n" + WebAppSettings.CAPACITY + "=2\n");
        Path cred = base.resolve("conf/" + WebAppSettings.DEFAULT_CREDENTIAL_FILE);
        Files.writeString(cred, credential.text());
        Files.setPosixFilePermissions(cred, PosixFilePermissions.fromString("rw-------"));
        return base;
    }

    static void awaitHosts(int count, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (cluster.engine().registry().hosts().size() < count) {
            if (!tomcat.isAlive() || System.nanoTime() > deadline) {
                throw new AssertionError("Tomcat did not join the engine (" + cluster.engine().registry().hosts().size()
                        + " host(s) registered); Tomcat's log:\n" + Files.readString(tomcatLog));
            }
            Thread.sleep(200);
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (tomcat != null) {
            stopTomcat(tomcat);
        }
        if (cluster != null) {
            cluster.close();
        }
        if (work != null) {
            FileTrees.deleteQuietly(work);
        }
    }

    static HostInfo tomcatHost() {
        return cluster.engine().registry().hosts().stream().filter(h -> h.hostId().equals(tomcatCredential.hostId()))
                .findFirst().orElseThrow(() -> new AssertionError("Tomcat's host is not registered"));
    }

    /** The ring through the engine, as a user runs it ({@code mpflc run DOC --engine URL --json}): {run JSON, why}. */
    static Object[] runRing() throws Exception {
        Path doc = work.resolve("tomcatring.mpfl.xml");
        Files.writeString(doc, RING);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = Commands.run(List.of("run", doc.toString(), "--engine", cluster.engine().url(), "--data",
                        cluster.engine().config().dataDir().toString(), "--json"),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        String text = out.toString(StandardCharsets.UTF_8);
        String why = "exit " + exit + "\n" + err.toString(StandardCharsets.UTF_8) + text + "\nTomcat's log:\n"
                + Files.readString(tomcatLog);
        return new Object[] {text.isBlank() ? Json.MAPPER.createObjectNode() : Json.MAPPER.readTree(text), why};
    }

    @Test
    void aRingRunsWithRanksInTomcatAndInAnMpflcHost() throws Exception {
        assertTrue(tomcatHost().soapUrl().startsWith(tomcatUrl + "/axis2/services"), tomcatHost().soapUrl());
        Object[] result = runRing();
        JsonNode run = (JsonNode) result[0];
        String why = (String) result[1];
        assertEquals("SUCCEEDED", run.path("state").asText(), why);
        assertEquals(6, run.at("/outputs/token/0").asInt(), why);
        // where each rank ran: the run's detail in the engine
        JsonNode detail = cluster.engine().runs().detail(run.path("run").asText())
                .orElseThrow(() -> new AssertionError("no detail of run " + run.path("run").asText()));
        Set<String> hosts = new HashSet<>();
        for (JsonNode r : detail.path("ranks")) {
            hosts.add(r.path("host").asText());
        }
        assertTrue(hosts.contains(tomcatCredential.hostId()), "some rank ran in Tomcat: " + detail.path("ranks"));
        assertEquals(2, hosts.size(), "ranks in Tomcat and in the mpflc host: " + detail.path("ranks"));
        // the generated service was deployed into Tomcat by the engine, and Tomcat serves the one WSDL
        try (MpiwsClient client = new MpiwsClient(Duration.ofSeconds(20))) {
            String service = ringServiceInTomcat().orElseThrow(() -> new AssertionError(tomcatHost().services().toString()));
            String wsdl = client.wsdl(tomcatUrl + "/axis2/services/" + service);
            assertTrue(wsdl.contains("MpiwsSoap12Binding") && wsdl.contains(tomcatUrl + "/axis2/services/" + service), wsdl);
        }
    }

    /**
     * A second Tomcat given the first one's credential (its files copied to another machine) is refused as a second
     * live process of that host. It cannot stop Tomcat, so it stops asking — it asked every 2 s for ever, each
     * answer on the audit trail — and logs one ERROR line saying why and what to do; the first keeps its entry.
     */
    @Test
    void aSecondTomcatWithTheSameCredentialStopsAskingAndSaysWhy() throws Exception {
        HostInfo first = tomcatHost();
        Path base = catalinaBase(work.resolve("second-catalina-base"), tomcatCredential, freePort());
        Path log = base.resolve("logs/console.log");
        Process second = startTomcat(base, log);
        try {
            String said = org.mpfl.testing.Await.until(Duration.ofSeconds(120), "the second Tomcat says it stops registering",
                    () -> {
                        assertTrue(second.isAlive(), "the second Tomcat stopped: " + Files.readString(log));
                        return Files.readString(log);
                    }, text -> text.contains("this host stops registering"));
            String line = said.lines().filter(l -> l.contains("this host stops registering")).findFirst().orElseThrow();
            assertTrue(line.contains(" ERROR "), line);
            assertTrue(line.endsWith("the engine at " + cluster.engine().url()
                    + " refused the announcement: HTTP 409: host '" + first.hostId() + "' is already running at " + first.soapUrl()
                    + " (another process with this credential, still heartbeating): stop that one first, or give this one a"
                    + " credential of its own (mpflc host-token --host-id NEW-ID -o FILE on the engine's machine); this host"
                    + " stops registering: it cannot stop its container, so it stays deployed but takes no work (in Tomcat:"
                    + " once mended, restart Tomcat or reload the /axis2 application, which reads its credential file again)"),
                    line);
            long refusals = refusedAnnouncements(first.hostId());
            // three beats of the first Tomcat (3 s apart): a second that kept asking (every 2 s) would have been answered
            for (int i = 0; i < 3; i++) {
                long beat = tomcatHost().lastHeartbeatMs();
                org.mpfl.testing.Await.until(Duration.ofSeconds(60), "the first Tomcat's next heartbeat",
                        () -> tomcatHost().lastHeartbeatMs(), t -> t > beat);
            }
            assertEquals(refusals, refusedAnnouncements(first.hostId()), "the second Tomcat asked again:\n" + Files.readString(log));
            assertEquals(1, Files.readString(log).split("this host stops registering", -1).length - 1, "said once");
            assertEquals(first.instance(), tomcatHost().instance(), "the first Tomcat keeps its entry");
        } finally {
            stopTomcat(second);
        }
        assertEquals(first.instance(), tomcatHost().instance(), "the second's goodbye leaves the first's entry alone");
    }

    /** The engine's answers other than a success to announcements of {@code hostId}, as its audit trail lists them. */
    private static long refusedAnnouncements(String hostId) throws Exception {
        cluster.engine().audit().flush(Duration.ofSeconds(10));
        JsonNode trail = org.mpfl.testing.Http.send("GET", cluster.engine().url() + "/api/audit",
                "Bearer " + cluster.engine().token(), null).json();
        long n = 0;
        for (JsonNode e : trail) {
            if (e.path("who").asText().equals("host:" + hostId) && e.path("action").asText().equals("POST /api/registry/hosts")
                    && e.path("status").asInt() >= 400) {
                n++;
            }
        }
        return n;
    }

    @Test
    void anonymousOrForgedDeploysAreRefusedBeforeTheArchiveIsRead() throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        URI deploy = URI.create(tomcatUrl + "/axis2/services/mpfl-deploy?service=Intruder");
        byte[] junk = new byte[1024];
        HttpResponse<String> anonymous = http.send(HttpRequest.newBuilder(deploy).timeout(Duration.ofSeconds(20))
                .POST(HttpRequest.BodyPublishers.ofByteArray(junk)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(403, anonymous.statusCode(), anonymous.body());
        HttpResponse<String> forged = http.send(HttpRequest.newBuilder(deploy).timeout(Duration.ofSeconds(20))
                .header("Authorization", HostCredential.engineAuthorization(DomainToken.generate()))
                .POST(HttpRequest.BodyPublishers.ofByteArray(junk)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(403, forged.statusCode(), forged.body());
        assertFalse(tomcatHost().services().contains("Intruder"));
        try (MpiwsClient client = new MpiwsClient(Duration.ofSeconds(10))) {
            assertThrows(MpiwsClient.MpiwsCallException.class, () -> client.wsdl(tomcatUrl + "/axis2/services/Intruder"));
        }
    }

    @Test
    void runWithoutTheEnginesKeyAndForgedStoresAreRefused() throws Exception {
        // a service Tomcat has: deployed by the ring run, or deploy it now through the engine's run
        String service = awaitServiceInTomcat();
        String url = tomcatUrl + "/axis2/services/" + service;
        try (MpiwsClient client = new MpiwsClient(Duration.ofSeconds(20))) {
            String domain = DomainToken.generate();
            String token = DomainToken.generate();
            // rank 0 of a two-rank ring: it sends to rank 1 (never started) and waits
            RunRequest req = new RunRequest(domain, 0, List.of(new Endpoint(url, null, null), new Endpoint(url, null, null)),
                    List.of(new RunRequest.ProcessSlice("node", service, 2)), Map.of("ranks", 2), token, null, "soap");
            MpiwsClient.MpiwsCallException noKey = assertThrows(MpiwsClient.MpiwsCallException.class, () -> client.run(url, req));
            assertEquals(SoapFault.REJECTED, noKey.fault() == null ? null : noKey.fault().subcode(), noKey.getMessage());
            MpiwsClient.MpiwsCallException wrongKey = assertThrows(MpiwsClient.MpiwsCallException.class,
                    () -> client.run(url, req, HostCredential.engineAuthorization(DomainToken.generate())));
            assertEquals(SoapFault.REJECTED, wrongKey.fault() == null ? null : wrongKey.fault().subcode(), wrongKey.getMessage());
            assertEquals("unknown", client.status(url, domain, 0).state(), "nothing was started");

            // the engine's key for this host (what the engine derives from the credential it issued) is accepted
            client.run(url, req, HostCredential.engineAuthorization(tomcatCredential.engineKey()));
            assertEquals("running", client.status(url, domain, 0).state());
            // a store into that domain with a made-up proof: refused from its header
            MpiwsClient.MpiwsCallException forged = assertThrows(MpiwsClient.MpiwsCallException.class,
                    () -> client.call(url, "store", storeBody(domain, 4, new byte[32])));
            assertEquals(SoapFault.REJECTED, forged.fault() == null ? null : forged.fault().subcode(), forged.getMessage());
            // announcing 2 GB: refused from the header, before anything is reserved or read
            byte[] proof = new DomainToken(token).prove(domain, 0, 1, 0, 0, 0, 0);
            MpiwsClient.MpiwsCallException big = assertThrows(MpiwsClient.MpiwsCallException.class,
                    () -> client.call(url, "store", storeBody(domain, 2_000_000_000L, proof)));
            assertEquals(SoapFault.REJECTED, big.fault() == null ? null : big.fault().subcode(), big.getMessage());
            assertEquals("running", client.status(url, domain, 0).state(), "the forged stores delivered nothing");
            // any SOAP client through Tomcat: the zeep example reads the status and aborts the domain
            assertTrue(zeep(url, "status", "--domain=" + domain, "--rank", "0").contains("\"state\": \"running\""));
            Path tokenFile = Files.createTempFile(work, "token", ".txt",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            Files.writeString(tokenFile, token);
            assertEquals("ok", zeep(url, "abort", "--domain=" + domain, "--token-file", tokenFile.toString()));
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (!client.status(url, domain, 0).isFinal() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertEquals("failed", client.status(url, domain, 0).state(), "aborted");
        }
    }

    /**
     * The attack of {@code UnprovenBodyBoundTest}, on Tomcat: a caller with no credential sends {@code status} (which
     * anyone may call) whose one element's text never ends, chunked. Tomcat bounds no body a servlet reads itself and
     * Axis2's object model holds the element's whole text, so Tomcat held whatever was sent (48 MB pushed: all read, the
     * connection still open). Now the body is read only up to {@code mpfl.host.unprovenBodyBytes} (1 MiB) and the
     * connection ends (Tomcat discards at most 2 MiB more); Tomcat goes on answering.
     */
    @Test
    void anEndlessElementFromACallerWithoutCredentialIsCutOff() throws Exception {
        URI url = URI.create(tomcatUrl + "/axis2/services/" + awaitServiceInTomcat());
        long pushed = EndlessElement.push(url, MpiwsNames.OP_STATUS, true, EndlessElement.PUSHED);
        assertTrue(pushed < EndlessElement.CUT_OFF, "Tomcat read " + (pushed >> 20) + " MB of one element from a caller without any"
                + " credential and had not closed the connection");
        try (MpiwsClient client = new MpiwsClient(Duration.ofSeconds(20))) {
            assertEquals("unknown", client.status(url.toString(), DomainToken.generate(), 0).state(), "Tomcat answers on");
        }
    }

    /**
     * The bound is lifted by a store's proof, read from its header before its payload: a proved store with 3 MB inline
     * (base64, the Axis2 path every store into Tomcat takes) is delivered, from a caller without the engine's key.
     */
    @Test
    void aProvedStoreLargerThanTheBoundIsTaken() throws Exception {
        String service = awaitServiceInTomcat();
        String url = tomcatUrl + "/axis2/services/" + service;
        try (MpiwsClient client = new MpiwsClient(Duration.ofSeconds(60))) {
            String domain = DomainToken.generate();
            String token = DomainToken.generate();
            RunRequest req = new RunRequest(domain, 0, List.of(new Endpoint(url, null, null), new Endpoint(url, null, null)),
                    List.of(new RunRequest.ProcessSlice("node", service, 2)), Map.of("ranks", 2), token, null, "soap");
            client.run(url, req, HostCredential.engineAuthorization(tomcatCredential.engineKey()));
            try {
                byte[] value = new byte[3 << 20];
                Arrays.fill(value, (byte) 7);
                // rank 1 to rank 0 on a tag the ring never receives: stored in rank 0's inbox, nothing more
                byte[] proof = new DomainToken(token).prove(domain, 0, 1, 0, 99, 0, 0);
                client.call(url, "store", storeBody(domain, 99, proof, "BYTES", "", java.util.Base64.getEncoder().encodeToString(value)));
            } finally {
                client.abort(url, domain, new DomainToken(token).proveAbort(domain));
            }
        }
    }

    /** The shipped Python client (samples/clients/python, zeep under /usr/bin/python3) on a Tomcat service; its stdout. */
    private static String zeep(String serviceUrl, String... args) throws Exception {
        Path client = Path.of("../../samples/clients/python/mpiws_client.py").toAbsolutePath().normalize();
        List<String> cmd = new java.util.ArrayList<>(List.of("/usr/bin/python3", client.toString(), "--wsdl", serviceUrl + "?wsdl"));
        cmd.addAll(List.of(args));
        Path out = Files.createTempFile(work, "zeep", ".out");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
            throw new AssertionError("the zeep client did not finish within 60 s");
        }
        String text = Files.readString(out).trim();
        assertEquals(0, p.exitValue(), text);
        return text;
    }

    private static String storeBody(String domain, long length, byte[] proof) {
        return storeBody(domain, 0, proof, "INT", "<m:length>" + length + "</m:length>", "AAAAAA==");
    }

    /** A store from rank 1 to rank 0 of {@code domain}; {@code length}: an {@code m:length} element, or nothing. */
    private static String storeBody(String domain, int tag, byte[] proof, String type, String length, String payloadBase64) {
        return "<m:store xmlns:m=\"urn:mpfl:mpiws\"><m:domainId>" + domain + "</m:domainId><m:context>0</m:context>"
                + "<m:from>1</m:from><m:to>0</m:to><m:tag>" + tag + "</m:tag><m:seq>0</m:seq><m:kind>DATA</m:kind>"
                + "<m:proof>" + java.util.Base64.getEncoder().encodeToString(proof) + "</m:proof><m:type>" + type + "</m:type>"
                + length + "<m:payload>" + payloadBase64 + "</m:payload></m:store>";
    }

    /** A generated service deployed in Tomcat: the ring's, after running it once if needed. */
    private static String awaitServiceInTomcat() throws Exception {
        if (ringServiceInTomcat().isEmpty()) {
            Object[] result = runRing();
            assertEquals("SUCCEEDED", ((JsonNode) result[0]).path("state").asText(), (String) result[1]);
        }
        return ringServiceInTomcat().orElseThrow(() -> new AssertionError(tomcatHost().services().toString()));
    }

    /** The ring's service as the engine deployed it: under its workflow-qualified name (W.hHASH.TomcatRing). */
    private static java.util.Optional<String> ringServiceInTomcat() {
        return tomcatHost().services().stream().filter(s -> s.equals("TomcatRing") || s.endsWith(".TomcatRing")).findFirst();
    }

}
