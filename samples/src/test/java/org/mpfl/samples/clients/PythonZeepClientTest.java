package org.mpfl.samples.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.compiler.MpflCompiler;
import org.mpfl.compiler.gen.BuildWriter;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.Endpoint;
import org.mpfl.protocol.MpiwsClient;
import org.mpfl.protocol.RankStatus;
import org.mpfl.protocol.RunRequest;
import org.mpfl.protocol.launch.HostProcess;
import org.mpfl.protocol.launch.HostProcesses;
import org.mpfl.testing.StartsProcesses;

/**
 * The shipped Python client ({@code samples/clients/python/mpiws_client.py}, zeep — Debian's
 * {@code python3-zeep} under {@code /usr/bin/python3}) against a real {@code mpflc host} process
 * serving a generated service: it loads the WSDL (from {@code ?wsdl} and from the file in the
 * archive), reads {@code status}, sends a {@code store} with the HMAC proof computed in Python that
 * the waiting rank receives (its output is the value sent), and aborts a domain. The attacks: a store
 * and an abort with a wrong token are refused with {@code m:Rejected} and change nothing; a status read
 * without the token, or with a wrong one, shows a finished rank's state but not its output or failure
 * message (the Python client computes the status proof, with the token, to read them).
 */
@Timeout(180)
@StartsProcesses
class PythonZeepClientTest {
    private static final String PYTHON = "/usr/bin/python3";
    private static final Path CLIENT = Path.of("clients/python/mpiws_client.py").toAbsolutePath();
    private static final String SERVICE = "Waiter";
    /** Rank 0 waits for one int from rank 1 and outputs it; only rank 0 is started: the Python client plays rank 1. */
    private static final String DOCUMENT = """
            <?xml version="1.0" encoding="UTF-8"?>
            <workflow xmlns="urn:mpfl:1.0" name="waiter">
              <process name="w" ranks="2" service="Waiter">
                <var name="x" type="int" init="0"/>
                <if test="rank == 0">
                  <receive from="1" into="x"/>
                <else>
                  <send to="0" data="5"/>
                </else>
                </if>
                <output name="x" value="x"/>
              </process>
            </workflow>
            """;
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path work;
    private static HostProcesses hosts;
    private static HostProcess host;
    private static MpiwsClient engine;

    @BeforeAll
    static void startHost() throws Exception {
        assertTrue(Files.isExecutable(Path.of(PYTHON)), PYTHON + " (with python3-zeep) is needed: .ci/run installs it");
        Path doc = work.resolve("waiter.mpfl.xml");
        Files.writeString(doc, DOCUMENT);
        MpflCompiler.CheckResult r = new MpflCompiler().check(doc, "waiter.mpfl.xml", Map.of());
        assertTrue(r.ok(), r.diagnostics().sorted().toString());
        Path build = work.resolve("build");
        BuildWriter.write(r.workflow(), Files.readAllBytes(doc), work, build, null);
        Path services = Files.createDirectories(work.resolve("services"));
        Files.copy(build.resolve("w.aar"), services.resolve(SERVICE + ".aar"));
        try (ZipFile zip = new ZipFile(build.resolve("w.aar").toFile())) {
            Files.write(work.resolve(SERVICE + ".wsdl"), zip.getInputStream(zip.getEntry("META-INF/" + SERVICE + ".wsdl")).readAllBytes());
        }
        // a host without an engine: run (the test plays the engine) is accepted from this machine only
        hosts = HostProcesses.builder().count(1).hostArg("--services").hostArg(services.toString()).start();
        host = hosts.get(0);
        engine = new MpiwsClient(Duration.ofSeconds(20));
    }

    @AfterAll
    static void stopHost() {
        if (engine != null) {
            engine.close();
        }
        if (hosts != null) {
            hosts.close();
        }
    }

    /**
     * Starts rank 0 of a new domain (as the engine would); returns {domainId, token}. The ID begins
     * with "-", as one generated ID in 64 does: the client must take it as {@code --domain=ID}
     * (TomcatHostTest once failed on such an ID passed as {@code --domain ID}).
     */
    private static String[] startRankZero() throws Exception {
        String domain = "-" + DomainToken.generate().substring(1);
        String token = DomainToken.generate();
        String url = host.serviceUrl(SERVICE);
        List<Endpoint> endpoints = List.of(host.endpoint(SERVICE), new Endpoint(url, null, null));
        engine.run(url, new RunRequest(domain, 0, endpoints, List.of(new RunRequest.ProcessSlice("w", SERVICE, 2)),
                Map.of(), token, null, "soap"));
        return new String[] {domain, token};
    }

    private static Path tokenFile(String token) throws IOException {
        Path f = Files.createTempFile(work, "token", ".txt",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(f, token);
        return f;
    }

    /** Runs the Python client; returns {exit code, stdout, stderr}. */
    private static String[] python(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(PYTHON, CLIENT.toString()));
        cmd.addAll(List.of(args));
        Path out = Files.createTempFile(work, "py", ".out");
        Path err = Files.createTempFile(work, "py", ".err");
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
            throw new AssertionError("the Python client did not finish within 60 s: " + cmd);
        }
        return new String[] {String.valueOf(p.exitValue()), Files.readString(out, StandardCharsets.UTF_8).trim(),
            Files.readString(err, StandardCharsets.UTF_8).trim()};
    }

    /** The Python client's status of a rank, read without the domain token. */
    private static JsonNode status(String wsdl, String domain, int rank) throws Exception {
        String[] r = python("--wsdl", wsdl, "status", "--domain=" + domain, "--rank", String.valueOf(rank));
        assertEquals("0", r[0], "status failed: " + r[2]);
        assertTrue(r[2].contains("no domain token"), "the client says why outputs are missing: " + r[2]);
        return JSON.readTree(r[1]);
    }

    /** The Python client's status of a rank, read with the domain token (from a file). */
    private static JsonNode status(String wsdl, String domain, int rank, String token) throws Exception {
        String[] r = python("--wsdl", wsdl, "status", "--domain=" + domain, "--rank", String.valueOf(rank),
                "--token-file", tokenFile(token).toString());
        assertEquals("0", r[0], "status failed: " + r[2]);
        return JSON.readTree(r[1]);
    }

    /** Rank 0's status as the engine reads it (with the status proof) once final, or after 30 s. */
    private static RankStatus awaitFinal(String domain, String token) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        byte[] proof = new DomainToken(token).proveStatus(domain, 0);
        RankStatus s = engine.status(host.serviceUrl(SERVICE), domain, 0, proof);
        while (!s.isFinal() && System.nanoTime() < deadline) {
            Thread.sleep(50);
            s = engine.status(host.serviceUrl(SERVICE), domain, 0, proof);
        }
        return s;
    }

    @Test
    void statusThenAStoreTheWaitingRankReceives() throws Exception {
        String[] d = startRankZero();
        String wsdl = host.serviceUrl(SERVICE) + "?wsdl";
        assertEquals("running", status(wsdl, d[0], 0).get("state").asText());

        // the attack: the right header with a proof made from a wrong token
        String[] forged = python("--wsdl", wsdl, "store", "--domain=" + d[0], "--token-file",
                tokenFile(DomainToken.generate()).toString(), "--from", "1", "--to", "0", "--int", "666");
        assertEquals("1", forged[0], forged[1]);
        assertTrue(forged[2].startsWith("fault: Rejected"), forged[2]);
        assertEquals("running", status(wsdl, d[0], 0).get("state").asText(), "a forged store delivers nothing");

        String[] sent = python("--wsdl", wsdl, "store", "--domain=" + d[0], "--token-file", tokenFile(d[1]).toString(),
                "--from", "1", "--to", "0", "--int", "42");
        assertEquals("0", sent[0], sent[2]);
        RankStatus end = awaitFinal(d[0], d[1]);
        assertEquals("done", end.state(), String.valueOf(end.failure()));
        assertEquals("42", end.outputsJson().get("x"), "rank 0 received the value the Python client sent");
        // and the Python client with the token reads the same through status (its proof computed in Python)
        JsonNode s = status(wsdl, d[0], 0, d[1]);
        assertEquals("done", s.get("state").asText());
        assertEquals("42", s.get("outputs").get("x").asText());
        // the attacks: knowing the domain ID only, or a wrong token, shows the state but not the output
        for (JsonNode stranger : List.of(status(wsdl, d[0], 0), status(wsdl, d[0], 0, DomainToken.generate()))) {
            assertEquals("done", stranger.get("state").asText(), stranger.toString());
            assertEquals(0, stranger.get("outputs").size(), stranger.toString());
        }
    }

    @Test
    void theArchivesWsdlFileWithTheServiceAddressWorksToo() throws Exception {
        String[] d = startRankZero();
        String file = work.resolve(SERVICE + ".wsdl").toString();
        String[] sent = python("--wsdl", file, "--address", host.serviceUrl(SERVICE), "store", "--domain=" + d[0],
                "--token-file", tokenFile(d[1]).toString(), "--from", "1", "--to", "0", "--int", "-7");
        assertEquals("0", sent[0], sent[2]);
        RankStatus end = awaitFinal(d[0], d[1]);
        assertEquals("-7", end.outputsJson().get("x"));
    }

    @Test
    void abortNeedsTheDomainsToken() throws Exception {
        String[] d = startRankZero();
        String wsdl = host.serviceUrl(SERVICE) + "?wsdl";
        String[] forged = python("--wsdl", wsdl, "abort", "--domain=" + d[0], "--token-file",
                tokenFile(DomainToken.generate()).toString());
        assertEquals("1", forged[0], forged[1]);
        assertTrue(forged[2].startsWith("fault: Rejected"), forged[2]);
        assertEquals("running", status(wsdl, d[0], 0).get("state").asText(), "a forged abort aborts nothing");

        String[] aborted = python("--wsdl", wsdl, "abort", "--domain=" + d[0], "--token-file", tokenFile(d[1]).toString());
        assertEquals("0", aborted[0], aborted[2]);
        RankStatus end = awaitFinal(d[0], d[1]);
        assertEquals("failed", end.state());
        assertTrue(String.valueOf(end.failure()).contains("aborted by request"), end.failure());
        JsonNode s = status(wsdl, d[0], 0, d[1]);
        assertEquals("failed", s.get("state").asText());
        assertTrue(s.get("failure").asText().contains("aborted by request"), s.toString());
        JsonNode stranger = status(wsdl, d[0], 0);
        assertEquals("failed", stranger.get("state").asText(), stranger.toString());
        assertTrue(stranger.get("failure").isNull(), "the failure message is the run's, not a stranger's: " + stranger);
    }
}
