package org.mpfl.engine.cli;

import org.mpfl.ir.cli.Commands;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.testing.Http;
import org.mpfl.engine.json.Json;
import org.mpfl.protocol.HostCredential;
import org.mpfl.ir.files.FileTrees;
import org.mpfl.testing.LabPki;
import org.mpfl.testing.StartsProcesses;

/**
 * {@code mpflc slurm} on a real single-node Slurm cluster ({@link SlurmCluster}: munged, slurmctld and
 * slurmd started here) against an engine started here: a batch job starts the node's service host with
 * {@code srun}, enrolled with the node's credential file, runs the ring sample on it and stops it; a job
 * without {@code --run} keeps its host up for an {@code mpflc run --engine URL} from outside until the
 * allocation ends ({@code scancel}), after which no host is listed and no host process is left. Attacks:
 * a credential file others can read, and a node without a credential, are refused before any host starts.
 */
@Timeout(400)
@StartsProcesses
class SlurmCommandTest {
    /**
     * The ring's ranks on the one node's host, whose capacity is the machine's cores (2 in CI): the run
     * asks to oversubscribe rather than wait in the run queue for slots that never come.
     */
    static final String OVERSUBSCRIBE = " --oversubscribe";
    static SlurmCluster slurm;
    static Engine engine;
    static Path dir;
    static Path credentials;
    static Path mpflc;
    static Path ring;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("mpfl-slurm-test-");
        slurm = SlurmCluster.start();
        // bound beyond loopback, as on a cluster's login node: its reads need a credential, so mpflc slurm (which has
        // no admin token in a job) must find the nodes' hosts with their own credentials; the nodes call it on loopback
        int port;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
            port = free.getLocalPort();
        }
        engine = Engine.start(new EngineConfig().port(port).bindHost("0.0.0.0").publicUrl("http://127.0.0.1:" + port)
                .dataDir(dir.resolve("engine")));
        credentials = Files.createDirectories(dir.resolve("credentials"));
        HostCredential c = engine.issueHostCredential(slurm.node());
        HostTokenCommand.writeOwnerOnly(credentials.resolve(slurm.node() + ".credential"), c.text());
        mpflc = SlurmCluster.mpflcScript(dir);
        ring = Path.of("..", "samples", "ring", "ring.mpfl.xml").toAbsolutePath().normalize();
    }

    @AfterAll
    static void stop() throws IOException {
        if (slurm != null) {
            slurm.close();
        }
        if (engine != null) {
            engine.close();
        }
        if (dir != null) {
            FileTrees.deleteQuietly(dir);
        }
    }

    /**
     * Jobs back to back on one node: each job's host is a new process under the same host id, and the
     * entry the last one left (killed by srun's "forcing job termination") must neither be taken for the
     * new host nor keep it out in quarantine. No wait between the jobs, on purpose. The last job is looked at
     * closely: every rank ran on the node's host, a job step of the batch job, which left the registry when the
     * job ended.
     */
    @Test
    void threeBatchJobsBackToBackOnTheSameNodeEachRunTheRingOnTheNodesHostThenStopIt() throws Exception {
        JsonNode last = backToBack(engine, credentials, "plain", List.of(), List.of());
        assertEquals(6, last.at("/outputs/token/0").asInt(), "0 + 1 + 2 + 3 around the ring: " + last);
        JsonNode run = Http.send("GET", engine.url() + "/api/runs/" + last.get("run").asText(), "Bearer " + engine.token(), null).json();
        for (JsonNode rank : run.get("ranks")) {
            assertEquals(slurm.node(), rank.get("host").asText(), "every rank on the node's host: " + run);
        }
        assertTrue(Files.readString(dir.resolve("logs-plain3").resolve("host-" + slurm.node() + ".log"))
                .contains("MPFL host " + slurm.node() + " listening"), "the host ran as a job step on the node");
        awaitTrue(() -> !listed(slurm.node()), "the host left the registry when the job ended");
        assertNoHostProcess();
    }

    /** The same over TLS: mpflc slurm's TLS flags are given to the node's host (it serves with them). */
    @Test
    void threeRunsBackToBackOverTlsAllSucceedAndTheHostServesTls() throws Exception {
        LabPki lab = LabPki.create(dir.resolve("pki"), "slurm-lab");
        LabPki.Machine machine = lab.issue(slurm.node(), "127.0.0.1");
        try (Engine tlsEngine = Engine.start(new EngineConfig().port(0).dataDir(dir.resolve("tls-engine")).tls(machine.settings()))) {
            Path tlsCredentials = Files.createDirectories(dir.resolve("tls-credentials"));
            HostTokenCommand.writeOwnerOnly(tlsCredentials.resolve(slurm.node() + ".credential"),
                    tlsEngine.issueHostCredential(slurm.node()).text());
            List<String> tls = machine.pemArguments();
            backToBack(tlsEngine, tlsCredentials, "tls", tls, List.of("--tls-ca", machine.caPem().toString()));
            String hostLog = Files.readString(dir.resolve("logs-tls3").resolve("host-" + slurm.node() + ".log"));
            assertTrue(hostLog.contains("listening on https://"), "the node's host served over TLS: " + hostLog);
        }
    }

    /** Three batch jobs of {@code mpflc slurm --run ring}, one after the other: each COMPLETED, its run SUCCEEDED; the last run's summary. */
    private static JsonNode backToBack(Engine target, Path creds, String name, List<String> slurmTls, List<String> runTls)
            throws Exception {
        JsonNode result = null;
        for (int i = 1; i <= 3; i++) {
            Path logs = dir.resolve("logs-" + name + i);
            Path out = dir.resolve(name + i + ".out");
            String wrap = mpflc + " slurm --credentials " + creds + " --bind 127.0.0.1 --mpflc " + mpflc + " --log-dir " + logs
                    + " " + String.join(" ", slurmTls) + " --run " + ring + " --data " + target.config().dataDir() + " --json "
                    + String.join(" ", runTls) + OVERSUBSCRIBE;
            String ended = sbatchAndAwaitEnd("--nodes=1", "--output=" + out, "--wrap=" + wrap);
            String text = Files.readString(out);
            assertEquals("COMPLETED", ended, name + " job " + i + " of 3: " + text);
            String json = text.lines().filter(l -> l.startsWith("{")).reduce((a, b) -> b)
                    .orElseThrow(() -> new AssertionError("job " + name + " " + text));
            result = Json.MAPPER.readTree(json);
            assertEquals("SUCCEEDED", result.get("state").asText(), name + " job " + i + " of 3: " + text);
        }
        assertNoHostProcessOf(creds);
        return result;
    }

    @Test
    void hostsServeRunsFromOutsideUntilTheAllocationEnds() throws Exception {
        Path logs = dir.resolve("logs-serve");
        String submitted = sbatch("--nodes=1", "--output=" + dir.resolve("serve.out"), "--wrap=" + mpflc + " slurm --credentials "
                + credentials + " --bind 127.0.0.1 --mpflc " + mpflc + " --log-dir " + logs);
        String job = jobId(submitted);
        awaitTrue(() -> listed(slurm.node()), "the node's host enrolled");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = Commands.run(List.of("run", ring.toString(), "--engine", engine.url(), "--data", engine.config().dataDir().toString(),
                "--json", "--param", "ranks=3", OVERSUBSCRIBE.strip()), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        JsonNode result = Json.MAPPER.readTree(out.toString(StandardCharsets.UTF_8));
        assertEquals(0, exit, err.toString(StandardCharsets.UTF_8));
        assertEquals(3, result.at("/outputs/token/0").asInt(), result.toString());
        assertTrue(listed(slurm.node()), "still up after the run: it serves until the allocation ends");
        SlurmCluster.run(List.of("scancel", job), slurm.environment());
        awaitTrue(() -> !listed(slurm.node()), "the host left the registry when the allocation ended");
        awaitTrue(() -> {
            try {
                return SlurmCluster.run(List.of("squeue", "-h", "-j", job), slurm.environment()).isBlank();
            } catch (IOException e) {
                return true; // squeue refuses an id it has forgotten
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, "the job is gone");
        assertNoHostProcess();
    }

    @Test
    void aCredentialOthersCanReadOrAMissingOneIsRefusedBeforeAnyHostStarts() throws Exception {
        Path loose = Files.createDirectories(dir.resolve("loose"));
        Path file = Files.copy(credentials.resolve(slurm.node() + ".credential"), loose.resolve(slurm.node() + ".credential"));
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        Path empty = Files.createDirectories(dir.resolve("empty"));
        for (Path creds : List.of(loose, empty)) {
            Path logs = dir.resolve("logs-" + creds.getFileName());
            Path out = dir.resolve(creds.getFileName() + ".out");
            String ended = sbatchAndAwaitEnd("--nodes=1", "--output=" + out, "--wrap=" + mpflc
                    + " slurm --credentials " + creds + " --bind 127.0.0.1 --mpflc " + mpflc + " --log-dir " + logs + " --run " + ring
                    + " --data " + engine.config().dataDir());
            String text = Files.readString(out);
            assertEquals("FAILED", ended, "the job's script exited non-zero: " + text);
            assertTrue(text.contains(creds == loose ? "must be mode 0600" : "no credential for node " + slurm.node()), text);
            assertFalse(Files.exists(logs.resolve("host-" + slurm.node() + ".log")), "no host step was started: " + text);
        }
        assertFalse(listed(slurm.node()));
    }

    /**
     * A document that is missing, does not compile or leaves a required param without a value is reported before srun:
     * the allocation's hosts never start.
     */
    @Test
    void aMissingOrBrokenDocumentIsRefusedBeforeAnyHostStarts() throws Exception {
        Path broken = Files.writeString(dir.resolve("broken.mpfl.xml"), """
                <workflow xmlns="urn:mpfl:1.0" name="broken">
                  <process name="p" ranks="2">
                    <send to="nowhere" data="1"/>
                  </process>
                </workflow>
                """);
        Path unvalued = Files.writeString(dir.resolve("unvalued.mpfl.xml"), """
                <workflow xmlns="urn:mpfl:1.0" name="unvalued">
                  <param name="n" type="int"/>
                  <process name="p" ranks="1">
                    <output name="twice" value="2 * n"/>
                  </process>
                </workflow>
                """);
        Map<Path, String> said = Map.of(dir.resolve("no-such.mpfl.xml"), "no-such.mpfl.xml: no such file", broken, "broken.mpfl.xml:3:",
                unvalued, "unvalued.mpfl.xml:2:3: error: param 'n' has no value");
        for (Path document : said.keySet()) {
            String name = document.getFileName().toString();
            Path logs = dir.resolve("logs-" + name);
            Path out = dir.resolve(name + ".out");
            String ended = sbatchAndAwaitEnd("--nodes=1", "--output=" + out, "--wrap=" + mpflc
                    + " slurm --credentials " + credentials + " --bind 127.0.0.1 --mpflc " + mpflc + " --log-dir " + logs + " --run "
                    + document + " --data " + engine.config().dataDir());
            String text = Files.readString(out);
            assertEquals("FAILED", ended, "the job's script exited non-zero: " + text);
            assertTrue(text.contains(said.get(document)), text);
            assertFalse(Files.exists(logs.resolve("srun.log")), "no host step was started: " + text);
        }
    }

    /** An engine nobody answers at is reported before srun, with what to check: the hosts would only wait for it. */
    @Test
    void anEngineOutOfReachIsReportedBeforeAnyHostStarts() throws Exception {
        int closedPort;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        Path logs = dir.resolve("logs-no-engine");
        Path out = dir.resolve("no-engine.out");
        String ended = sbatchAndAwaitEnd("--nodes=1", "--output=" + out, "--wrap=" + mpflc + " slurm --credentials " + credentials
                + " --bind 127.0.0.1 --mpflc " + mpflc + " --log-dir " + logs + " --engine http://127.0.0.1:" + closedPort
                + " --run " + ring);
        String text = Files.readString(out);
        assertEquals("FAILED", ended, "the job's script exited non-zero: " + text);
        assertTrue(text.contains("cannot reach the engine at http://127.0.0.1:" + closedPort) && text.contains("nothing listens there")
                && text.contains("no host was started"), text);
        assertFalse(Files.exists(logs.resolve("srun.log")), "no host step was started: " + text);
    }

    /** Submits with {@code sbatch} (bounded) in the test cluster's environment; its output. */
    private static String sbatch(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("sbatch"));
        cmd.addAll(List.of(args));
        try {
            return SlurmCluster.run(cmd, slurm.environment());
        } catch (IOException e) {
            throw new AssertionError(e.getMessage() + slurm.logs(), e);
        }
    }

    /** The states squeue shows for a job that has ended (Slurm's job_state_string, COMPLETING excluded). */
    private static final Set<String> ENDED = Set.of("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "PREEMPTED",
            "BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY");

    /**
     * Submits a batch job and waits until squeue shows it ended; that state (FAILED: its script exited non-zero).
     * Not {@code sbatch --wait}: that looks after 2 s, then 8 s, then every 32 s (Slurm's sbatch.c, with the
     * default MinJobAge), so each job here, done in a few seconds, took 10; squeue is asked every 200 ms.
     */
    private static String sbatchAndAwaitEnd(String... args) throws Exception {
        String submitted = sbatch(args);
        String job = jobId(submitted);
        // bounded as the test's other waits, with room for the job's host JVM start on a loaded 2-core machine
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        String state = "";
        while (!ENDED.contains(state)) {
            if (System.nanoTime() > end) {
                throw new AssertionError("job " + job + " did not end within 180 s (last seen " + state + ")" + slurm.logs());
            }
            Thread.sleep(200);
            try {
                state = SlurmCluster.run(List.of("squeue", "-h", "-j", job, "--states=all", "-o", "%T"), slurm.environment()).strip();
            } catch (IOException e) {
                throw new AssertionError("squeue lost job " + job + " (MinJobAge is 300 s): " + e.getMessage() + slurm.logs(), e);
            }
        }
        return state;
    }

    /** The job id in sbatch's "Submitted batch job N". */
    private static String jobId(String submitted) {
        assertTrue(submitted.matches("(?s).*Submitted batch job \\d+.*"), submitted);
        return submitted.replaceAll("(?s).*Submitted batch job (\\d+).*", "$1");
    }

    private static boolean listed(String hostId) {
        return engine.registry().hosts().stream().anyMatch(h -> h.hostId().equals(hostId));
    }

    /** No process is left whose command line names this test's directory (a host, srun, mpflc slurm). */
    private static void assertNoHostProcess() throws Exception {
        assertNoHostProcessOf(credentials);
    }

    private static void assertNoHostProcessOf(Path creds) throws Exception {
        awaitTrue(() -> leftovers(creds).isEmpty(), "no process of this test is left: " + leftovers(creds));
    }

    private static List<String> leftovers(Path creds) {
        List<String> found = new ArrayList<>();
        ProcessHandle.allProcesses().forEach(p -> p.info().commandLine().ifPresent(c -> {
            if (c.contains(creds.toString()) || c.contains(mpflc.toString())) {
                found.add(p.pid() + " " + c);
            }
        }));
        return found;
    }

    private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError(what + " (not within 60 s)" + slurm.logs());
            }
            Thread.sleep(200);
        }
    }
}
