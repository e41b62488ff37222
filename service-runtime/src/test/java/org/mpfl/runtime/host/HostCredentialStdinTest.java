package org.mpfl.runtime.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.ir.cli.UsageException;
import org.mpfl.protocol.HostCredential;
import org.mpfl.protocol.launch.HostProcess;
import org.mpfl.protocol.launch.HostProcesses;
import org.mpfl.testing.ProcFiles;
import org.mpfl.testing.StartsProcesses;

/**
 * A host that gets its engine's URL and credential on standard input after its start ({@code mpflc host
 * --credential-stdin}, how {@code run --local} starts hosts while its engine is still starting): it
 * announces itself with that credential, which never shows on its command line or in its environment;
 * until then it takes no orders; a host whose input closes first, or that gets no line within its bound,
 * exits saying so.
 */
@Timeout(180)
@StartsProcesses
class HostCredentialStdinTest {
    @TempDir
    Path logs;

    @Test
    void aHostHandedItsCredentialOnStdinAnnouncesItselfWithIt() throws Exception {
        List<String> announcements = new CopyOnWriteArrayList<>();
        HttpServer engine = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        engine.createContext("/api/registry/hosts", ex -> {
            ex.getRequestBody().readAllBytes();
            if (!ex.getRequestURI().getPath().endsWith("/heartbeat") && "POST".equals(ex.getRequestMethod())) {
                announcements.add(ex.getRequestHeaders().getFirst("Authorization"));
            }
            byte[] answer = "{\"heartbeatIntervalMs\":500}".getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(201, answer.length);
            ex.getResponseBody().write(answer);
            ex.close();
        });
        engine.start();
        HostProcesses.Launch launch = HostProcesses.builder().count(1).service("Nothing", HostProcessTest.Nothing.class)
                .credentialsOnStdin().readyTimeout(Duration.ofSeconds(120)).logDirectory(logs).launch();
        HostProcesses hosts = null;
        try {
            Process p = launch.processes().get(0);
            HostCredential credential = HostCredential.generate("http://127.0.0.1:" + engine.getAddress().getPort(), launch.hostId(0));
            String cmdline = ProcFiles.read(p, "cmdline");
            assertTrue(cmdline.contains("--credential-stdin") && cmdline.contains("--host-id " + launch.hostId(0)), cmdline);
            launch.handOver(0, credential);
            hosts = launch.awaitReady();
            HostProcess h = hosts.get(0);
            assertEquals(launch.hostId(0), h.hostId());
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (announcements.isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertEquals(credential.authorization(), announcements.isEmpty() ? null : announcements.get(0),
                    "the host announced itself with the credential it was handed");
            for (String file : List.of("cmdline", "environ")) {
                String text = ProcFiles.read(p, file);
                assertFalse(text.contains(credential.secret()) || text.contains(credential.line())
                        || text.contains(HostCredential.ENV), "the credential in /proc/PID/" + file + ": " + text);
            }
        } finally {
            if (hosts != null) {
                hosts.close();
            } else {
                launch.abort();
            }
            engine.stop(0);
        }
        assertFalse(launch.processes().get(0).isAlive(), "host process still running after close()");
    }

    @Test
    void aHostWhoseStdinClosesBeforeTheLineExitsSayingSo() throws Exception {
        HostProcesses.Launch launch = HostProcesses.builder().count(1).credentialsOnStdin()
                .readyTimeout(Duration.ofSeconds(120)).logDirectory(logs).launch();
        Process p = launch.processes().get(0);
        try {
            p.getOutputStream().close();
            // it reads its input once started: the bound is its own start-up, not the 120 s
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the host still runs after its input closed");
            assertEquals(1, p.exitValue());
            String log = Files.readString(logs.resolve("host-0.log"));
            assertTrue(log.contains("mpflc host: standard input closed before the engine's URL and this host's credential arrived"),
                    log);
            assertFalse(log.contains("\tat "), "a stack trace: " + log);
            IOException e = assertThrows(IOException.class, launch::awaitReady);
            assertTrue(e.getMessage().contains("standard input closed before"), e.getMessage());
        } finally {
            launch.abort();
        }
    }

    @Test
    void aHostThatGetsNoLineWithinItsTimeoutExitsSayingSo() throws Exception {
        // the launcher's ready timeout is the host's bound (--credential-timeout)
        HostProcesses.Launch launch = HostProcesses.builder().count(1).credentialsOnStdin()
                .readyTimeout(Duration.ofSeconds(2)).logDirectory(logs).launch();
        Process p = launch.processes().get(0);
        try {
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the host still waits for a line after its bound");
            assertEquals(1, p.exitValue());
            String log = Files.readString(logs.resolve("host-0.log"));
            assertTrue(log.contains("mpflc host: no engine URL and credential on standard input within 2 s"), log);
        } finally {
            launch.abort();
        }
    }

    @Test
    void theStdinHandOverIsTheOnlySourceAndNeedsTheHostId() {
        PrintStream out = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        UsageException noId = assertThrows(UsageException.class, () -> HostMain.run(List.of("--credential-stdin"), out, out));
        assertTrue(noId.getMessage().contains("--host-id"), noId.getMessage());
        UsageException twoSources = assertThrows(UsageException.class, () -> HostMain.run(
                List.of("--credential-stdin", "--host-id", "h", "--engine", "http://127.0.0.1:1"), out, out));
        assertTrue(twoSources.getMessage().contains("give no --engine"), twoSources.getMessage());
        UsageException wrongHost = assertThrows(UsageException.class, () -> HostMain.handedOver(
                HostCredential.generate("http://127.0.0.1:1", "other").line(), "h"));
        assertTrue(wrongHost.getMessage().contains("for host other, this host is h"), wrongHost.getMessage());
        HostCredential noEngine = HostCredential.generate(null, "h");
        UsageException engineless = assertThrows(UsageException.class, () -> HostMain.handedOver(noEngine.line(), "h"));
        assertTrue(engineless.getMessage().contains("names no engine"), engineless.getMessage());
        UsageException garbage = assertThrows(UsageException.class, () -> HostMain.handedOver("not a credential!", "h"));
        assertTrue(garbage.getMessage().contains("not a host credential line"), garbage.getMessage());
    }

    @Test
    void theCredentialLineCarriesTheEngineAndTheCredential() {
        HostCredential c = HostCredential.generate("https://10.0.0.1:8443", "h-1");
        assertFalse(c.line().contains("\n") || c.line().contains(" "), c.line());
        assertEquals(c, HostCredential.parseLine(c.line(), "test"));
    }

    @Test
    void aHostAwaitingItsCredentialTakesNoOrdersNotEvenFromThisMachine() throws Exception {
        HostCredential c = HostCredential.generate("http://127.0.0.1:1", "h-await");
        ServiceHost waiting = ServiceHost.start(new ServiceHost.Options("127.0.0.1", 0, null, "h-await", null, false, 0,
                org.mpfl.protocol.tls.TlsSettings.NONE, true));
        ServiceHost plain = ServiceHost.start(new ServiceHost.Options("127.0.0.1", 0, null, null, null, false));
        try {
            assertTrue(plain.acceptsEngineCall(null, "127.0.0.1"), "a host without an engine takes orders from this machine");
            assertFalse(waiting.acceptsEngineCall(null, "127.0.0.1"), "a host awaiting its credential takes none");
            waiting.setCredential(c);
            assertFalse(waiting.acceptsEngineCall(null, "127.0.0.1"));
            assertTrue(waiting.acceptsEngineCall(HostCredential.engineAuthorization(c.engineKey()), "127.0.0.1"));
        } finally {
            waiting.close();
            plain.close();
        }
    }
}
