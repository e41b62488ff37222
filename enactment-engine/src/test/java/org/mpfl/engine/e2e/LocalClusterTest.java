package org.mpfl.engine.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.local.LocalCluster;
import org.mpfl.engine.registry.HostInfo;
import org.mpfl.protocol.HostCredential;
import org.mpfl.testing.ProcFiles;
import org.mpfl.testing.StartsProcesses;

/**
 * {@code run --local}'s cluster: its hosts start while the engine does and get the engine's URL and
 * their credential on standard input (never in argv or the environment); they register and run ranks;
 * closing the cluster leaves no host running and no host's files behind. The embedded variant
 * ({@code run --local} without {@code --hosts}) runs the same ranks on a host in this JVM.
 */
@Timeout(240)
@StartsProcesses
class LocalClusterTest {
    @TempDir
    Path dir;

    @Test
    void hostsHandedTheirCredentialOnStdinRegisterRunRanksAndLeaveNothingBehind() throws Exception {
        // how a credential's text, and so its one-line form, begins (HostCredential.text(), base64url of 21 bytes)
        String textStart = "# MPFL host credential";
        String lineStart = Base64.getUrlEncoder().withoutPadding().encodeToString(
                textStart.substring(0, 21).getBytes(StandardCharsets.US_ASCII));
        List<Process> processes;
        List<String> hostIds;
        long closeMs;
        LocalCluster cluster = LocalCluster.start(new EngineConfig().port(0).dataDir(dir.resolve("engine")), 2,
                List.of("ring=" + RingProgram.class.getName()), Duration.ofSeconds(120));
        try {
            Engine engine = cluster.engine();
            hostIds = engine.registry().hosts().stream().map(HostInfo::hostId).toList();
            assertEquals(2, hostIds.size(), "registered: " + hostIds);
            processes = cluster.hostProcesses();
            assertEquals(2, processes.size());
            for (Process p : processes) {
                String cmdline = ProcFiles.read(p, "cmdline");
                String environ = ProcFiles.read(p, "environ");
                assertTrue(cmdline.contains("--credential-stdin"), cmdline);
                assertFalse(cmdline.contains("--engine"), "the engine's URL comes with the credential: " + cmdline);
                for (String text : List.of(cmdline, environ)) {
                    assertFalse(text.contains(HostCredential.ENV) || text.contains("secret=") || text.contains(textStart)
                            || text.contains(lineStart), "a credential in a host's argv or environment: " + text);
                }
            }
            JsonNode d = PlanRuns.awaitEnd(engine, PlanRuns.start(engine, "ring", 4, Map.of("rounds", 2)), 60_000);
            assertEquals("SUCCEEDED", d.get("state").asText(), d.toString());
            assertEquals(8, d.at("/outputs/token/0").asLong());
        } finally {
            long t0 = System.nanoTime();
            cluster.close();
            closeMs = (System.nanoTime() - t0) / 1_000_000;
        }
        for (Process p : processes) {
            assertFalse(p.isAlive(), "a host still runs after close()");
        }
        // bounded: hosts and engine stop at once; each host is killed within its 5 s grace at the latest
        assertTrue(closeMs < 15_000, "close() took " + closeMs + " ms");
        // each host deleted its repository before it was ended (ServiceHost: java.io.tmpdir/mpfl-host-ID-*)
        for (String id : hostIds) {
            try (Stream<Path> s = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
                List<Path> left = s.filter(f -> f.getFileName().toString().startsWith("mpfl-host-" + id + "-")).toList();
                assertTrue(left.isEmpty(), "files of host " + id + " left: " + left);
            }
        }
    }

    @Test
    void anEmbeddedHostRunsTheRanksInThisJvmThroughTheEngineAndLeavesNothingBehind() throws Exception {
        String hostId;
        LocalCluster cluster = LocalCluster.startEmbedded(new EngineConfig().port(0).dataDir(dir.resolve("engine")),
                List.of("ring=" + RingProgram.class.getName()), Duration.ofSeconds(120));
        try {
            Engine engine = cluster.engine();
            assertTrue(cluster.hostProcesses().isEmpty(), "an embedded host is no process");
            List<HostInfo> hosts = engine.registry().hosts();
            assertEquals(1, hosts.size(), "registered: " + hosts);
            hostId = hosts.get(0).hostId();
            // the engine reaches it as any host: over HTTP, at the SOAP URL it announced itself with
            assertTrue(hosts.get(0).soapUrl().startsWith("http://127.0.0.1:"), hosts.get(0).toString());
            JsonNode d = PlanRuns.awaitEnd(engine, PlanRuns.start(engine, "ring", 4, Map.of("rounds", 2)), 60_000);
            assertEquals("SUCCEEDED", d.get("state").asText(), d.toString());
            assertEquals(8, d.at("/outputs/token/0").asLong());
            assertTrue(ProcessHandle.current().children().noneMatch(h -> h.info().commandLine().orElse("").contains("credential")),
                    "the run started a host process");
        } finally {
            cluster.close();
        }
        // close() waits for the host only up to its bound (the JVM of 'run --local' ends right after), so the
        // host's last step, deleting its repository, is awaited here: 60 s holds on a loaded 2-core machine
        long deadline = System.nanoTime() + 60_000_000_000L;
        List<Path> left;
        do {
            try (Stream<Path> s = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
                left = s.filter(f -> f.getFileName().toString().startsWith("mpfl-host-" + hostId + "-")).toList();
            }
            if (!left.isEmpty()) {
                Thread.sleep(50);
            }
        } while (!left.isEmpty() && System.nanoTime() < deadline);
        assertTrue(left.isEmpty(), "files of the embedded host left: " + left);
    }

    @Test
    void anEngineThatCannotStartTakesItsAlreadyLaunchedHostsWithIt() throws Exception {
        // a host file that does not exist: the engine fails while the hosts it will not need are starting
        org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class, () -> LocalCluster.start(new EngineConfig().port(0)
                .dataDir(dir.resolve("engine")).hostFile(dir.resolve("no.hosts")), 2, List.of(), Duration.ofSeconds(120)));
        // the hosts were launched before the engine failed: none may outlive the failed start
        List<String> running = ProcessHandle.current().children().filter(ProcessHandle::isAlive).map(h -> {
            try {
                return Files.readString(Path.of("/proc/" + h.pid() + "/cmdline")).replace('\0', ' ');
            } catch (java.io.IOException gone) {
                return "";
            }
        }).filter(cmdline -> cmdline.contains("--credential-stdin")).toList();
        assertTrue(running.isEmpty(), "launched hosts still run: " + running);
    }
}
