package org.mpfl.engine.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mpfl.testing.MpflcCall;
import org.mpfl.engine.EngineConfig;
import org.mpfl.testing.Http;
import org.mpfl.engine.console.activities.Pause;
import org.mpfl.engine.e2e.TestActivities;
import org.mpfl.engine.json.Json;
import org.mpfl.engine.local.LocalCluster;
import org.mpfl.ir.files.FileTrees;
import org.mpfl.testing.StartsProcesses;

/**
 * {@code mpflc run FILE --sweep …}: real runs on host processes, against an engine ({@code --engine})
 * and on a cluster of its own ({@code --local}); the cartesian product, bounded concurrency (read
 * from the engine's record of when each run was created and ended), one progress line per run, the
 * table and the JSON; a failing combination does not stop the others.
 */
@Timeout(300)
@StartsProcesses
class SweepTest {
    static Path dir;
    static LocalCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("mpfl-sweep-");
        try (InputStream in = SweepTest.class.getResourceAsStream("/mpfl/sweep.mpfl.xml")) {
            Files.write(dir.resolve("sweep.mpfl.xml"), in.readAllBytes());
        }
        TestActivities.jar(Files.createDirectories(dir.resolve("lib")).resolve("activities.jar"), Pause.class);
        cluster = LocalCluster.start(new EngineConfig().port(0).dataDir(dir.resolve("engine")), 2, Duration.ofSeconds(90));
    }

    @AfterAll
    static void stop() throws IOException {
        if (cluster != null) {
            cluster.close();
        }
        FileTrees.deleteQuietly(dir);
    }

    static MpflcCall mpflc(String... args) {
        return MpflcCall.run(args);
    }

    static String[] onEngine(String... more) {
        List<String> args = new ArrayList<>(List.of("run", dir.resolve("sweep.mpfl.xml").toString(), "--engine", cluster.engine().url(),
                "--data", cluster.engine().config().dataDir().toString()));
        args.addAll(List.of(more));
        return args.toArray(String[]::new);
    }

    @Test
    void theCartesianProductRunsWithATableOfOutputs() {
        MpflcCall r = mpflc(onEngine("--sweep", "a=1,2,3", "--sweep", "b=0,5", "--param", "ranks=3", "--parallel", "3"));
        assertEquals(0, r.exit(), r.err() + r.out());
        assertTrue(r.err().contains("sweep of 6 run(s), 3 at a time"), r.err());
        List<String> progress = r.err().lines().filter(l -> l.matches("\\[\\d/6] .*")).toList();
        assertEquals(6, progress.size(), "one progress line per run: " + r.err());
        assertTrue(progress.stream().allMatch(l -> l.contains("SUCCEEDED") && l.contains("run ")), r.err());
        List<String> lines = r.out().lines().toList();
        assertEquals(7, lines.size(), r.out());
        assertTrue(lines.get(0).matches("a\\s+b\\s+state\\s+seconds\\s+share\\s+sum"), lines.get(0));
        // first axis slowest; share per rank as an object; sum = ranks * (10a + b) from rank 0 alone
        assertTrue(lines.get(1).matches("1\\s+0\\s+SUCCEEDED\\s+\\d+\\.\\d\\s+\\{\"0\":10,\"1\":20,\"2\":30}\\s+30"), lines.get(1));
        assertTrue(lines.get(2).matches("1\\s+5\\s+SUCCEEDED\\s+\\d+\\.\\d\\s+\\S+\\s+45"), lines.get(2));
        assertTrue(lines.get(6).matches("3\\s+5\\s+SUCCEEDED\\s+\\d+\\.\\d\\s+\\S+\\s+105"), lines.get(6));
    }

    @Test
    void atMostParallelRunsAreInFlightAtOnceAndThatManyAre() throws Exception {
        // every rank pauses 1.5 s, far longer than it takes the sweep to start its next run, so the
        // first three runs are surely under way together and each later one waits for a free place
        int parallel = 3;
        MpflcCall r = mpflc(onEngine("--sweep", "a=1,2,3,4,5,6", "--param", "ranks=1", "--param", "pauseMs=1500",
                "--parallel", Integer.toString(parallel), "--json"));
        assertEquals(0, r.exit(), r.err() + r.out());
        List<long[]> lifetimes = new ArrayList<>();
        for (JsonNode outcome : Json.MAPPER.readTree(r.out())) {
            JsonNode run = Http.get(cluster.engine().url() + "/api/runs/" + outcome.path("run").asText()).json();
            assertEquals("SUCCEEDED", run.path("state").asText(), run.toString());
            lifetimes.add(new long[] {run.path("createdMs").asLong(), run.path("endedMs").asLong()});
        }
        assertEquals(6, lifetimes.size(), r.out());
        assertEquals(parallel, mostAtOnce(lifetimes), "runs in flight at once, from the engine's createdMs and endedMs: "
                + lifetimes.stream().map(l -> "[" + l[0] + ", " + l[1] + "]").toList());
    }

    /**
     * The largest number of the intervals [created, ended] that overlap at one instant. A run created in
     * the millisecond another ended does not overlap it: the sweep starts its next run only once it has
     * seen one end.
     */
    static int mostAtOnce(List<long[]> lifetimes) {
        List<long[]> changes = new ArrayList<>();
        for (long[] l : lifetimes) {
            changes.add(new long[] {l[0], 1});
            changes.add(new long[] {l[1], -1});
        }
        changes.sort(java.util.Comparator.<long[]>comparingLong(c -> c[0]).thenComparingLong(c -> c[1]));
        int now = 0;
        int most = 0;
        for (long[] c : changes) {
            now += (int) c[1];
            most = Math.max(most, now);
        }
        return most;
    }

    @Test
    void mostAtOnceCountsOnlyRealOverlaps() {
        assertEquals(1, mostAtOnce(List.of(new long[] {0, 10}, new long[] {10, 20}, new long[] {20, 30})));
        assertEquals(2, mostAtOnce(List.of(new long[] {0, 10}, new long[] {5, 20}, new long[] {10, 30})));
        assertEquals(3, mostAtOnce(List.of(new long[] {0, 10}, new long[] {1, 9}, new long[] {2, 3})));
    }

    @Test
    void jsonAndAFailingCombinationThatDoesNotStopTheOthers() throws Exception {
        MpflcCall r = mpflc(onEngine("--sweep", "a=-1,4", "--json"));
        assertEquals(1, r.exit(), "one run failed: " + r.err());
        JsonNode runs = Json.MAPPER.readTree(r.out());
        assertEquals(2, runs.size(), r.out());
        assertEquals("-1", runs.get(0).path("params").path("a").asText());
        assertEquals("FAILED", runs.get(0).path("state").asText());
        assertTrue(runs.get(0).path("error").asText().contains("a must not be negative"), runs.get(0).toString());
        assertEquals("SUCCEEDED", runs.get(1).path("state").asText());
        assertEquals(80, runs.get(1).path("outputs").path("sum").path("0").asInt(), runs.get(1).toString());
    }

    @Test
    void aSweepOnALocalClusterOfItsOwn() {
        MpflcCall r = mpflc("run", dir.resolve("sweep.mpfl.xml").toString(), "--local", "--hosts", "1", "--sweep", "ranks=1,2");
        assertEquals(0, r.exit(), r.err() + r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.matches("2\\s+SUCCEEDED\\s+\\d+\\.\\d\\s+\\{\"0\":10,\"1\":20}\\s+20")), r.out());
    }

    @Test
    void badSweepsAreUsageErrors() {
        assertUsage(mpflc(onEngine("--sweep", "a")), "--sweep needs NAME=V1,V2");
        assertUsage(mpflc(onEngine("--sweep", "a=1,,2")), "empty value");
        assertUsage(mpflc(onEngine("--sweep", "a=1", "--param", "a=2")), "both --param and --sweep");
        assertUsage(mpflc(onEngine("--sweep", "a=1", "--sweep", "a=2")), "swept twice");
        assertUsage(mpflc(onEngine("--parallel", "2")), "--parallel applies to --sweep only");
        assertUsage(mpflc(onEngine("--sweep", "a=1", "--parallel", "0")), "--parallel must be at least 1");
        StringBuilder many = new StringBuilder("0");
        for (int i = 1; i < 40; i++) {
            many.append(',').append(i);
        }
        assertUsage(mpflc(onEngine("--sweep", "a=" + many, "--sweep", "b=" + many)), "more than 1000 combinations");
        MpflcCall invalid = mpflc(onEngine("--sweep", "ranks=2,0"));
        assertEquals(1, invalid.exit());
        assertTrue(invalid.out().contains("INVALID"), invalid.out() + invalid.err());
    }

    static void assertUsage(MpflcCall r, String message) {
        assertEquals(2, r.exit(), r.err());
        assertTrue(r.err().contains(message), r.err());
    }

    @Test
    void valuesSplitAtTopLevelCommasOnly() {
        assertEquals(List.of("[1,2]", "[3]", "x"), Sweep.split("[1,2], [3],x"));
    }
}
