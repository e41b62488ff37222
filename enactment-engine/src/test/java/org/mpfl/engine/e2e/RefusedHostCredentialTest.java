package org.mpfl.engine.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.cli.Mpflc;
import org.mpfl.engine.run.FakeRanks;
import org.mpfl.protocol.HostCredential;
import org.mpfl.testing.Await;
import org.mpfl.testing.Http;
import org.mpfl.testing.StartsProcesses;
import org.mpfl.testing.childjvm.ChildJvm;

/**
 * An {@code mpflc host} whose credential the engine refuses (401: never issued, a wrong secret, revoked) stops and
 * says why, instead of retrying for ever: waiting does not mend a credential, and a host started in a Slurm job
 * would hold its nodes for nothing. A real engine, and the host as its own process.
 */
@StartsProcesses
@Timeout(240)
class RefusedHostCredentialTest {
    @TempDir
    Path dir;

    @Test
    void aHostWhoseCredentialIsRevokedStopsSayingWhy() throws Exception {
        try (Engine engine = Engine.start(new EngineConfig().port(0).dataDir(dir.resolve("engine")).invoker(new FakeRanks(r -> { })))) {
            HostCredential credential = engine.issueHostCredential("node-a");
            Process host = startHost(credential);
            // enrolled and beating: 90 s is a margin for a host JVM's start on a loaded 2-core machine
            Await.until(Duration.ofSeconds(90), "the host to register",
                    () -> engine.registry().host("node-a").isPresent() || !host.isAlive());
            assertTrue(host.isAlive(), "the host stopped before it registered: " + said());
            assertEquals(204, Http.send("DELETE", engine.url() + "/api/registry/credentials/" + credential.id(),
                    "Bearer " + engine.token(), null).status());
            String said = awaitExit(host);
            assertEquals(1, host.exitValue(), said);
            assertTrue(said.contains("mpflc host: the engine at " + engine.url() + " refused a heartbeat: HTTP 401: the engine"
                    + " refuses this host's credential (unknown, revoked or a wrong secret; a new one: mpflc host-token on the"
                    + " engine's machine); stopping"), said);
        }
    }

    @Test
    void aHostWithACredentialTheEngineNeverIssuedStopsAtItsStart() throws Exception {
        try (Engine engine = Engine.start(new EngineConfig().port(0).dataDir(dir.resolve("engine")).invoker(new FakeRanks(r -> { })))) {
            Process host = startHost(HostCredential.generate(engine.url(), "node-b"));
            String said = awaitExit(host);
            assertEquals(1, host.exitValue(), said);
            assertTrue(said.contains("refused the announcement: HTTP 401: the engine refuses this host's credential"), said);
            assertTrue(engine.registry().hosts().isEmpty(), engine.registry().hosts().toString());
        }
    }

    /** A relay's credential used for a host: the engine answers 409, which asking again will not change. */
    @Test
    void aHostWithARelaysCredentialStopsSayingSo() throws Exception {
        try (Engine engine = Engine.start(new EngineConfig().port(0).dataDir(dir.resolve("engine")).invoker(new FakeRanks(r -> { })))) {
            HostCredential relay = engine.issueRelayCredential("relay1");
            Path relayFile = dir.resolve("relay1.credential");
            Files.writeString(relayFile, relay.text());
            Files.setPosixFilePermissions(relayFile, PosixFilePermissions.fromString("rw-------"));
            // a real relay (in this JVM) holds the credential as a relay's: the engine watches it while it answers
            int port;
            try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
                port = free.getLocalPort();
            }
            Thread relayThread = new Thread(() -> {
                try {
                    org.mpfl.ir.cli.Commands.run(List.of("relay", "--credential-file", relayFile.toString(), "--bind", "127.0.0.1",
                            "--port", Integer.toString(port)), new java.io.PrintStream(java.io.OutputStream.nullOutputStream()),
                            new java.io.PrintStream(java.io.OutputStream.nullOutputStream()));
                } catch (RuntimeException e) {
                    // stopped by the interrupt below
                }
            }, "test-relay");
            relayThread.setDaemon(true);
            relayThread.start();
            try {
                Await.until(Duration.ofSeconds(60), "the relay registered", () -> engine.registry().relays().isRelay("relay1"));
                Process host = startHost(relay);
                String said = awaitExit(host);
                assertEquals(1, host.exitValue(), said);
                assertTrue(said.contains("refused the announcement: HTTP 409")
                        && said.contains("'relay1' holds a relay's credential: a host needs a host credential"), said);
            } finally {
                relayThread.interrupt();
                relayThread.join(10_000);
            }
        }
    }

    private Process startHost(HostCredential credential) throws Exception {
        Path file = dir.resolve(credential.hostId() + ".credential");
        Files.writeString(file, credential.text());
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        List<String> cmd = new ArrayList<>(ChildJvm.command(ChildJvm.shortLivedOptions("256m"), Mpflc.class.getName()));
        cmd.addAll(List.of("host", "--credential-file", file.toString(), "--port", "0", "--no-binary"));
        return new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(err().toFile()).start();
    }

    private Path err() {
        return dir.resolve("host.err");
    }

    private String said() throws Exception {
        return Files.readString(err(), StandardCharsets.UTF_8);
    }

    /** The host's standard error once it exited; it stops within a heartbeat of the refusal (90 s: a loaded machine's margin). */
    private String awaitExit(Process host) throws Exception {
        if (!host.waitFor(90, TimeUnit.SECONDS)) {
            host.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            throw new AssertionError("the refused host still runs: " + said());
        }
        return said();
    }
}
