package org.mpfl.engine.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.cli.Mpflc;
import org.mpfl.engine.registry.HostInfo;
import org.mpfl.engine.run.FakeRanks;
import org.mpfl.protocol.HostCredential;
import org.mpfl.protocol.launch.HostProcesses;
import org.mpfl.testing.Await;
import org.mpfl.testing.Http;
import org.mpfl.testing.Ports;
import org.mpfl.testing.StartsProcesses;
import org.mpfl.testing.childjvm.ChildJvm;

/**
 * One host credential, two {@code mpflc host} processes (two machines given one credential file, or a second start on
 * the same one): the second is refused and stops before it prints its ready line, saying which host runs where and what
 * to do, the first keeps its
 * entry and the audit trail has the refusal; a restarted host (the old process killed, so no goodbye) still takes its
 * entry. Also what a host says on its start and while it cannot reach its engine. A real engine, the hosts as their
 * own processes.
 */
@StartsProcesses
@Timeout(300)
class SecondHostProcessTest {
    @TempDir
    Path dir;
    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void stopHosts() throws Exception {
        for (Process p : started) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aSecondLiveProcessWithTheSameCredentialIsRefusedAndTheFirstGoesOn() throws Exception {
        try (Engine engine = Engine.start(new EngineConfig().port(0).dataDir(dir.resolve("engine")).heartbeatTimeout(Duration.ofSeconds(10))
                .invoker(new FakeRanks(r -> { })))) {
            HostCredential credential = engine.issueHostCredential("node-a");
            Process first = startHost(credential, "first", List.of());
            HostInfo registered = awaitRegistered(engine, first, "first");
            // a host that publishes no service yet says so, not a bare "services "
            String ready = Files.readString(dir.resolve("first.out"), StandardCharsets.UTF_8);
            assertTrue(ready.strip().endsWith(" no services"), ready);

            Process second = startHost(credential, "second", List.of());
            String said = awaitExit(second, "second");
            assertEquals(1, second.exitValue(), said);
            assertTrue(said.contains("mpflc host: the engine at " + engine.url() + " refused the announcement: HTTP 409: host"
                    + " 'node-a' is already running at " + registered.soapUrl() + " (another process with this credential, still"
                    + " heartbeating): stop that one first, or give this one a credential of its own (mpflc host-token --host-id"
                    + " NEW-ID -o FILE on the engine's machine); stopping"), said);
            // it learnt that before it said it was ready: a launcher waiting for the ready line never sees one
            String secondOut = Files.readString(dir.resolve("second.out"), StandardCharsets.UTF_8);
            assertFalse(secondOut.contains(HostProcesses.READY_PREFIX), "the refused host said it was ready: " + secondOut);
            assertEquals(1, count(said, "refused the announcement"), "one line says the refusal: " + said);
            assertTrue(first.isAlive(), "the first host runs on: " + Files.readString(dir.resolve("first.err")));
            assertEquals(registered.instance(), engine.registry().host("node-a").orElseThrow().instance(),
                    "the first process keeps its entry");
            // the first still beats its entry: it stays registered past the heartbeat timeout
            long beat = engine.registry().host("node-a").orElseThrow().lastHeartbeatMs();
            Await.until(Duration.ofSeconds(60), "the first host's next heartbeat",
                    () -> engine.registry().host("node-a").map(HostInfo::lastHeartbeatMs).orElse(0L), t -> t > beat);
            assertEquals(registered.instance(), engine.registry().host("node-a").orElseThrow().instance());

            JsonNode refusal = Await.until(Duration.ofSeconds(30), "the refusal on the audit trail",
                    () -> Http.send("GET", engine.url() + "/api/audit", "Bearer " + engine.token(), null).json(),
                    trail -> find(trail, 409) != null);
            JsonNode entry = find(refusal, 409);
            assertEquals("POST /api/registry/hosts", entry.path("action").asText(), entry.toString());
        }
    }

    @Test
    void aRestartedHostTakesItsEntryWithoutWaitingForTheTimeout() throws Exception {
        // a timeout far beyond this test: the restarted host must not have to wait for the old entry to expire
        try (Engine engine = Engine.start(new EngineConfig().port(0).dataDir(dir.resolve("engine")).heartbeatTimeout(Duration.ofSeconds(30))
                .invoker(new FakeRanks(r -> { })))) {
            HostCredential credential = engine.issueHostCredential("node-b");
            Process first = startHost(credential, "first", List.of());
            HostInfo old = awaitRegistered(engine, first, "first");
            // killed: no goodbye, the entry stays until its beats are missed
            first.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            long killedMs = System.currentTimeMillis();
            Process second = startHost(credential, "second", List.of());
            HostInfo fresh = Await.until(Duration.ofSeconds(90), "the restarted host takes the entry",
                    () -> {
                        assertTrue(second.isAlive(), "the restarted host stopped: " + Files.readString(dir.resolve("second.err")));
                        return engine.registry().host("node-b").orElse(old);
                    }, h -> !h.instance().equals(old.instance()));
            assertNotEquals(old.soapUrl(), fresh.soapUrl());
            assertTrue(System.currentTimeMillis() - killedMs < 90_000);
            assertTrue(second.isAlive(), Files.readString(dir.resolve("second.err")));
        }
    }

    /**
     * A wrong {@code --engine}: the host keeps trying (it may have started before its engine) and says so again while
     * it lasts, with how long, at growing gaps (here from 1 s on; one minute by default): not one line, then silence.
     */
    @Test
    void aHostThatCannotReachItsEngineSaysSoAgainAtGrowingGaps() throws Exception {
        String nowhere = "http://127.0.0.1:" + Ports.outsideEphemeralRange();
        Process host = startHost(HostCredential.generate(nowhere, "node-c"), "lonely", List.of("-Dmpfl.host.reminderMs=1000"));
        String said = Await.until(Duration.ofSeconds(120), "the host says it again", () -> Files.readString(dir.resolve("lonely.err")),
                s -> count(s, "still not registered with the engine for ") >= 3);
        assertTrue(host.isAlive(), said);
        assertEquals(1, count(said, "cannot reach the engine at " + nowhere + ": connection refused (nothing listens there")
                - count(said, "still not registered"), said);
        assertTrue(said.contains("since this host started: cannot reach the engine at " + nowhere), said);
    }

    private static int count(String text, String part) {
        int n = 0;
        for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + 1)) {
            n++;
        }
        return n;
    }

    private static JsonNode find(JsonNode trail, int status) {
        for (JsonNode e : trail) {
            if (e.path("who").asText().equals("host:node-a") && e.path("status").asInt() == status) {
                return e;
            }
        }
        return null;
    }

    /** The entry of the one host registered, once the {@code name} host printed its ready line. */
    private HostInfo awaitRegistered(Engine engine, Process host, String name) throws Exception {
        // 90 s: a host JVM's start on a loaded 2-core machine
        Await.until(Duration.ofSeconds(90), "the " + name + " host to register",
                () -> !engine.registry().hosts().isEmpty() && Files.readString(dir.resolve(name + ".out")).contains("MPFL host")
                        || !host.isAlive());
        assertTrue(host.isAlive(), "the " + name + " host stopped: " + Files.readString(dir.resolve(name + ".err")));
        return engine.registry().hosts().get(0);
    }

    private Process startHost(HostCredential credential, String name, List<String> jvmOptions) throws Exception {
        Path file = dir.resolve(credential.hostId() + ".credential");
        if (!Files.exists(file)) {
            Files.writeString(file, credential.text());
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        }
        List<String> options = new ArrayList<>(ChildJvm.shortLivedOptions("256m"));
        options.addAll(jvmOptions);
        List<String> cmd = new ArrayList<>(ChildJvm.command(options, Mpflc.class.getName()));
        cmd.addAll(List.of("host", "--credential-file", file.toString(), "--port", "0", "--no-binary"));
        Process p = new ProcessBuilder(cmd).redirectOutput(dir.resolve(name + ".out").toFile())
                .redirectError(dir.resolve(name + ".err").toFile()).start();
        started.add(p);
        return p;
    }

    /** The host's standard error once it exited (90 s: a loaded machine's margin). */
    private String awaitExit(Process host, String name) throws Exception {
        if (!host.waitFor(90, TimeUnit.SECONDS)) {
            host.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            throw new AssertionError("the refused host still runs: " + Files.readString(dir.resolve(name + ".err")));
        }
        return Files.readString(dir.resolve(name + ".err"), StandardCharsets.UTF_8);
    }
}
