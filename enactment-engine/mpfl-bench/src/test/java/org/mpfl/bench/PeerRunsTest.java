package org.mpfl.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.ir.cli.ArgumentSpec;
import org.mpfl.ir.cli.UsageException;
import org.mpfl.testing.StartsProcesses;

/** The peer options and the script runner, with stand-in scripts (the real peers take minutes). */
@StartsProcesses
class PeerRunsTest {
    private static final ArgumentSpec SPEC = ArgumentSpec.of("bench demo", "peer options alone").with(PeerRuns.Options::declare);

    private static PeerRuns.Options parseAll(String... args) throws UsageException {
        return PeerRuns.Options.of(SPEC.parse(List.of(args)));
    }

    @Test
    void peerOptions() throws Exception {
        assertEquals(new PeerRuns.Options(true, true, null, 0), parseAll("--with-peers"));
        assertEquals(new PeerRuns.Options(true, false, null, 0), parseAll("--with-mpj"));
        assertEquals(new PeerRuns.Options(false, true, Path.of("/p"), 0), parseAll("--with-ompi", "--peers", "/p"));
        assertEquals(Path.of("/p"), parseAll("--peers", "/p").dir());
        assertEquals(PeerRuns.Options.defaults(), parseAll());
        assertEquals(Path.of("/q"), parseAll("--peers=/q").peersDir());
        assertThrows(UsageException.class, () -> parseAll("--json"), "not a peer option");
        assertThrows(UsageException.class, () -> parseAll("--peers"));
    }

    @Test
    void theScriptRunsFromAPrivateCopyWithTheEnvironmentAndItsCsvIsRead(@TempDir Path dir) throws Exception {
        Path peers = dir.resolve("peers");
        Files.createDirectories(peers.resolve("mpj"));
        Files.writeString(peers.resolve("mpj/MpjBench.java"), "// stand-in");
        Files.writeString(peers.resolve("run-mpj.sh"), """
                set -e
                HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
                test -f "$HERE/mpj/MpjBench.java"
                echo "peer,mode,type,N,bytes,iters,rtt_median_us,rtt_min_us,rtt_mean_us,bw_MBps" > "$RES_DIR/mpj-pingpong.csv"
                echo "mpj,$DEVICES,double,1,8,10,$PROCS$SCALE,1,1,1" >> "$RES_DIR/mpj-pingpong.csv"
                echo "$WHAT $QUIET_WAIT $HERE" > "$RES_DIR/env.txt"
                echo "== done"
                """);
        Path res = dir.resolve("res");
        ByteArrayOutputStream progress = new ByteArrayOutputStream();
        int exit = PeerRuns.runScript(peers, "run-mpj.sh", List.of("mpj/MpjBench.java"),
                Map.of("RES_DIR", res.toString(), "DEVICES", "niodev", "PROCS", "2", "SCALE", "0.5", "WHAT", "p2p", "QUIET_WAIT", "3"),
                Duration.ofMinutes(1), new PrintStream(progress, true, StandardCharsets.UTF_8));
        assertEquals(0, exit);
        PeerResults r = PeerResults.read(res, "mpj", "measured in this run");
        assertEquals(20.5, r.us(new PeerResults.Peer("mpj", "niodev"), PeerResults.PINGPONG, 2, 1));
        String[] env = Files.readString(res.resolve("env.txt")).trim().split(" ");
        assertEquals("p2p", env[0]);
        assertEquals("3", env[1]);
        assertFalse(Path.of(env[2]).startsWith(peers), "ran from a copy, not in the peers' directory");
        assertFalse(Files.exists(Path.of(env[2])), "the copy is removed");
        assertTrue(progress.toString(StandardCharsets.UTF_8).contains("[peers] == done"));
        assertTrue(Files.readString(res.resolve("run-mpj.out")).contains("== done"));
        try (var files = Files.list(peers)) {
            assertEquals(2, files.count(), "nothing written into the peers' directory");
        }
    }

    @Test
    void aRunThatTimesOutLeavesNoProcessBehindNotEvenTheBackgroundDaemon(@TempDir Path dir) throws Exception {
        Path peers = dir.resolve("peers");
        Files.createDirectories(peers);
        // like run-mpj.sh: a daemon started in the background (no longer a child), its pid in build/mpj/daemon.pid
        Files.writeString(peers.resolve("run-mpj.sh"), """
                HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
                mkdir -p "$HERE/build/mpj"
                ( nohup bash -c 'sleep 300; true' daemon.jar > /dev/null 2>&1 &
                  echo $! > "$HERE/build/mpj/daemon.pid" )
                cp "$HERE/build/mpj/daemon.pid" "$RES_DIR/daemon.pid"
                echo $$ > "$RES_DIR/script.pid"
                sleep 300
                """);
        for (long pid : stoppedRunPids(peers, dir)) {
            var h = ProcessHandle.of(pid);
            assertTrue(h.isEmpty() || !h.get().isAlive(), pid + " still running");
        }
    }

    @Test
    void aDaemonWhosePidFileWasNeverWrittenIsStoppedToo(@TempDir Path dir) throws Exception {
        Path peers = dir.resolve("peers");
        Files.createDirectories(peers);
        // the daemon's pid only where the test finds it, not in build/<name>/daemon.pid
        Files.writeString(peers.resolve("run-mpj.sh"), """
                ( nohup bash -c 'sleep 300; true' daemon.jar > /dev/null 2>&1 &
                  echo $! > "$RES_DIR/daemon.pid" )
                echo $$ > "$RES_DIR/script.pid"
                sleep 300
                """);
        List<Long> alive = new java.util.ArrayList<>();
        for (long pid : stoppedRunPids(peers, dir)) {
            ProcessHandle.of(pid).filter(ProcessHandle::isAlive).ifPresent(h -> {
                alive.add(pid);
                h.descendants().forEach(ProcessHandle::destroyForcibly);
                h.destroyForcibly(); // not to leave it behind when the test fails
            });
        }
        assertTrue(alive.isEmpty(), "still running after the run was stopped: " + alive);
    }

    /**
     * Runs {@code run-mpj.sh} of {@code peers} until its time-out, which must find the daemon started and its and the
     * script's pid written to {@code RES_DIR} ({@code daemon.pid}, {@code script.pid}); returns those pids. A slow machine
     * may take longer than the first limit to get there, and is given a longer one.
     */
    private static List<Long> stoppedRunPids(Path peers, Path dir) throws IOException {
        PrintStream sink = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        for (Duration limit = Duration.ofSeconds(2); ; limit = limit.multipliedBy(2)) {
            Path res = dir.resolve("res-" + limit.toSeconds());
            Files.createDirectories(res);
            Duration l = limit;
            assertThrows(IOException.class, () -> PeerRuns.runScript(peers, "run-mpj.sh", List.of(), Map.of("RES_DIR", res.toString()),
                    l, sink));
            List<Long> pids = pids(res, "daemon.pid", "script.pid");
            if (!pids.isEmpty()) {
                return pids;
            }
            assertTrue(limit.toSeconds() < 32, "the script did not start its daemon and write the pids within " + limit.toSeconds() + " s");
        }
    }

    /** The pids in {@code files} under {@code dir}, or none when one of them is not (fully) written. */
    private static List<Long> pids(Path dir, String... files) throws IOException {
        List<Long> out = new java.util.ArrayList<>();
        for (String f : files) {
            Path p = dir.resolve(f);
            String text = Files.isRegularFile(p) ? Files.readString(p).trim() : "";
            if (!text.matches("[0-9]+")) {
                return List.of();
            }
            out.add(Long.parseLong(text));
        }
        return out;
    }

    @Test
    void aMissingScriptIsAnError(@TempDir Path dir) {
        PrintStream sink = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        assertThrows(IOException.class, () -> PeerRuns.runScript(dir, "run-mpj.sh", List.of(), Map.of("RES_DIR", dir.toString()),
                Duration.ofSeconds(5), sink));
    }
}
