package org.mpfl.engine.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.HostCalls;
import org.mpfl.engine.json.Json;
import org.mpfl.engine.run.FakeRanks;
import org.mpfl.testing.Await;
import org.mpfl.testing.Http;
import org.mpfl.testing.StartsProcesses;
import org.mpfl.testing.childjvm.ChildJvm;

/**
 * Stopping a command that follows a run (SIGTERM, as a closed terminal or Ctrl-C would): {@code mpflc run}, which
 * started the run, cancels it; {@code mpflc status --follow}, which only watches, leaves it running.
 */
@StartsProcesses
@Timeout(180)
class StopFollowingTest {
    @TempDir
    Path dir;

    @Test
    void stoppingAWatchLeavesTheRunStoppingItsStarterCancelsIt() throws Exception {
        try (Engine engine = Engine.start(new EngineConfig().port(0).heartbeatTimeout(HostCalls.SILENT_HOSTS_TIMEOUT).bindHost("127.0.0.1").dataDir(dir.resolve("engine"))
                .invoker(new FakeRanks(r -> r.awaitAbort(120_000))))) {
            HostCalls.announce(engine, Map.of("hostId", "h", "soapUrl", "http://127.0.0.1:1/s", "services", List.of("w")));
            Path plan = Files.writeString(dir.resolve("w.json"), Json.write(Map.of("workflow", "w",
                    "processes", List.of(Map.of("name", "w", "service", "w", "ranks", 1)))));
            Path token = Files.writeString(dir.resolve("token"), engine.token() + "\n");
            Files.setPosixFilePermissions(token, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));

            String watched = Http.post(engine.url() + "/api/runs", engine.token(), Map.of("plan", Json.MAPPER.readTree(
                    Files.readString(plan)))).json().get("id").asText();
            stopWhileFollowing(List.of("status", watched, "--follow", "--engine", engine.url()), "watch");
            assertEquals("RUNNING", state(engine, watched), "a stopped watch leaves the run going");

            Process run = stopWhileFollowing(List.of("run", plan.toString(), "--engine", engine.url(), "--token-file",
                    token.toString()), "run");
            String started = Files.readString(dir.resolve("run.err")).replaceAll("(?s).*run ([A-Za-z0-9_-]+) started.*", "$1");
            assertEquals("CANCELLED", state(engine, started), "the command that started the run cancels it: "
                    + Files.readString(dir.resolve("run.err")));
            assertTrue(run.exitValue() != 0);
            assertEquals(200, Http.post(engine.url() + "/api/runs/" + watched + "/cancel", engine.token(), Map.of()).status());
        }
    }

    /**
     * {@code run --local} stopped mid-run (SIGTERM, as Ctrl-C): the directory its ranks' archives were unpacked in goes
     * with it, where it stayed in the temporary directory.
     */
    @Test
    void aLocalRunStoppedMidRunLeavesNoDirectory() throws Exception {
        Path doc = StoppedLocalRunTest.spinDocument(dir);
        Path tmp = Files.createDirectories(dir.resolve("tmp"));
        List<String> options = new ArrayList<>(ChildJvm.shortLivedOptions("256m"));
        options.add("-Djava.io.tmpdir=" + tmp);
        List<String> cmd = new ArrayList<>(ChildJvm.command(options, Mpflc.class.getName()));
        cmd.addAll(List.of("run", doc.toString(), "--local", "--python", "/usr/bin/python3"));
        Path err = dir.resolve("local.err");
        Process p = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(err.toFile()).start();
        try {
            Await.until(java.time.Duration.ofSeconds(90), "the run unpacked its archive", () -> {
                try (var listed = Files.list(tmp)) {
                    return listed.anyMatch(f -> f.getFileName().toString().startsWith("mpfl-inprocess-"));
                }
            });
        } finally {
            p.destroy();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        try (var listed = Files.list(tmp)) {
            List<String> left = listed.map(f -> f.getFileName().toString()).filter(n -> n.startsWith("mpfl-inprocess-")).toList();
            assertEquals(List.of(), left, "left behind: " + Files.readString(err));
        }
    }

    /** Starts {@code mpflc ARGS} in a JVM of its own, waits until it follows (its first progress line), then SIGTERM. */
    private Process stopWhileFollowing(List<String> args, String name) throws Exception {
        List<String> cmd = new ArrayList<>(ChildJvm.command(ChildJvm.shortLivedOptions("256m"), Mpflc.class.getName()));
        cmd.addAll(args);
        Path err = dir.resolve(name + ".err");
        Process p = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(err.toFile()).start();
        try {
            // the progress line (not a terminal: one per state) shows it follows; a started run's says RUNNING too
            Await.until(java.time.Duration.ofSeconds(90), name + " follows the run", () -> Files.readString(err).contains("RUNNING"));
        } finally {
            p.destroy(); // SIGTERM: the JVM's shutdown hooks run, as on a hang-up
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        return p;
    }

    private static String state(Engine engine, String id) throws Exception {
        return Http.get(engine.url() + "/api/runs/" + id).json().get("state").asText();
    }
}
