package org.mpfl.engine.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.json.Json;
import org.mpfl.engine.local.LocalCluster;
import org.mpfl.engine.run.RunSettings;
import org.mpfl.ir.files.FileTrees;
import org.mpfl.testing.Await;
import org.mpfl.testing.Http;
import org.mpfl.testing.MpflcCall;
import org.mpfl.testing.StartsProcesses;
import org.mpfl.testing.docs.DocumentedCommands;

/**
 * Whose fault a Python kernel's failure is, end to end ({@code mpflc run DOC --restarts 2} on an engine with two
 * service-host processes): a kernel's own exception is never retried, even when its text says what a lost worker's
 * says ({@code kernel worker lost: …}); a kernel worker really killed by SIGKILL is, and the run then succeeds. The
 * host says the kind with the rank's FAILED state; the engine does not read it from the text.
 */
@StartsProcesses
@Timeout(300)
class KernelFaultRestartTest {
    static Path dir;
    static LocalCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("mpfl-kernel-fault-");
        Files.writeString(dir.resolve("k.py"), """
                import os
                import signal
                import time


                def wait_for(go):
                    # the test makes 'go' once every rank runs: the fault comes after the start-up (one held back
                    # while the run starts is decided by its kind too, HeldBackFaultTest)
                    deadline = time.monotonic() + 120
                    while not os.path.exists(go) and time.monotonic() < deadline:
                        time.sleep(0.01)


                def lie(x, go):
                    wait_for(go)
                    raise RuntimeError("kernel worker lost: just kidding")


                def killed_once(x, go):
                    # the first call after 'go' (of either rank) makes the marker and dies of SIGKILL, as by the OOM
                    # killer; every later call (the other rank's, the restarted run's) finds the marker and answers
                    wait_for(go)
                    try:
                        os.close(os.open(go + ".killed", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
                    except FileExistsError:
                        return {"y": x + 1.0}
                    os.kill(os.getpid(), signal.SIGKILL)
                """);
        Files.writeString(dir.resolve("kfault.mpfl.xml"), """
                <workflow xmlns="urn:mpfl:1.0" name="kfault">
                  <library path="k.py"/>
                  <param name="kernel" type="string" default="'lie'"/>
                  <param name="go" type="string" default="''"/>
                  <process name="p" ranks="2">
                    <var name="x" type="double" init="1.0"/>
                    <var name="y" type="double" init="0.0"/>
                    <if test="kernel == 'lie'">
                      <compute python="k:lie" in="x, go" out="y"/>
                    <else>
                      <compute python="k:killed_once" in="x, go" out="y"/>
                    </else>
                    </if>
                    <output name="y" value="y"/>
                  </process>
                </workflow>
                """);
        // 15 s heartbeats and 5 missed polls: a loaded machine must not lose a host (a restart of its own) meanwhile
        cluster = LocalCluster.start(new EngineConfig().port(0).dataDir(dir.resolve("engine")).heartbeatTimeout(Duration.ofSeconds(15))
                .runSettings(new RunSettings(Duration.ofSeconds(30), Duration.ofSeconds(20), Duration.ofMillis(500), 5, "auto")),
                2, Duration.ofSeconds(90));
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
        FileTrees.deleteQuietly(dir);
    }

    /**
     * Runs the document with {@code --restarts 2}, kernel {@code kernel}, and lets its kernels go on once every rank
     * of the first attempt runs; the run's detail once it ended.
     */
    private static JsonNode run(String kernel) throws Exception {
        Path go = dir.resolve(kernel + ".go");
        List<String> args = List.of("run", dir.resolve("kfault.mpfl.xml").toString(), "--json", "--restarts", "2",
                "--engine", cluster.engine().url(), "--data", cluster.engine().config().dataDir().toString(),
                "--param", "kernel=" + kernel, "--param", "go=" + go);
        CompletableFuture<MpflcCall> call = CompletableFuture.supplyAsync(() -> MpflcCall.run(args.toArray(String[]::new)));
        JsonNode running = Await.until(Duration.ofSeconds(120), "a kfault run with every rank running", () -> {
            for (JsonNode r : Http.get(cluster.engine().url() + "/api/runs").json()) {
                if (r.path("state").asText().equals("RUNNING")) {
                    return Http.get(cluster.engine().url() + "/api/runs/" + r.path("id").asText()).json();
                }
            }
            return null;
        }, d -> d != null && d.path("state").asText().equals("RUNNING") && d.path("startupMs").isNumber());
        Files.writeString(go, "");
        MpflcCall done = call.get(180, TimeUnit.SECONDS);
        assertEquals(running.path("id").asText(), Json.MAPPER.readTree(done.out()).path("run").asText(), done.err());
        return Http.get(cluster.engine().url() + "/api/runs/" + running.path("id").asText()).json();
    }

    @Test
    void aKernelsExceptionSayingItsWorkerWasLostIsNotRetried() throws Exception {
        JsonNode d = run("lie");
        assertEquals("FAILED", d.path("state").asText(), d.toString());
        assertTrue(d.at("/error/message").asText().contains("kernel worker lost: just kidding"), d.toString());
        assertEquals(0, d.at("/restarts/used").asInt(), "the kernel's own fault, not retried: " + d);
        assertEquals(1, d.path("attemptLog").size(), d.toString());
    }

    @Test
    void aKernelWorkerKilledBySigkillIsRetriedAndTheRunSucceeds() throws Exception {
        JsonNode d = run("killed");
        assertEquals("SUCCEEDED", d.path("state").asText(), d.toString());
        assertEquals(2.0, d.at("/outputs/y/0").asDouble(), d.toString());
        assertEquals(1, d.at("/restarts/used").asInt(), d.toString());
        String cause = d.at("/attemptLog/1/cause").asText();
        assertTrue(cause.startsWith("restart after: ") && cause.contains("kernel worker lost:") && cause.contains("SIGKILL"),
                d.toString());
    }

    @Test
    void aLocalRunSaysItsRestartOnceInTheUsersWords() throws Exception {
        // bin/mpflc as a user runs it: the embedded engine logs to this process's stderr, next to the follower's lines
        Path go = dir.resolve("local.go");
        Files.writeString(go, "");
        DocumentedCommands.Result r = DocumentedCommands.run(List.of(DocumentedCommands.root().resolve("bin/mpflc").toString(), "run",
                dir.resolve("kfault.mpfl.xml").toString(), "--local", "--restarts", "1", "--param", "kernel=killed", "--param", "go=" + go),
                dir, java.util.Map.of());
        assertEquals(0, r.exit(), r.output());
        assertEquals(1, r.output().split("restart after: ", -1).length - 1, "said once: " + r.output());
        assertTrue(r.output().contains("mpflc run: attempt 2: restart after: kernel worker lost:"), r.output());
        assertFalse(r.output().contains("RunLifecycle"), "no engine log line: " + r.output());
    }
}
