package org.mpfl.engine.e2e;

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
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mpfl.testing.MpflcCall;
import org.mpfl.engine.EngineConfig;
import org.mpfl.testing.Http;
import org.mpfl.engine.json.Json;
import org.mpfl.engine.local.LocalCluster;
import org.mpfl.ir.files.FileTrees;
import org.mpfl.testing.StartsProcesses;

/**
 * {@code mpflc trace} over real runs on two service-host processes: the trace is valid Trace Event
 * JSON with a track per rank, its spans nest, its send/receive pairs equal the run's message counters,
 * collectives appear with their root and bytes, every checkpoint the run record counts is an instant
 * on every rank's track, and a fault is an instant event with its location.
 */
@Timeout(300)
@StartsProcesses
class RunTraceTest {
    static Path dir;
    static LocalCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("mpfl-trace-");
        for (String doc : List.of("trace", "failing")) {
            try (InputStream in = RunTraceTest.class.getResourceAsStream("/mpfl/" + doc + ".mpfl.xml")) {
                Files.write(dir.resolve(doc + ".mpfl.xml"), in.readAllBytes());
            }
        }
        TestActivities.jar(Files.createDirectories(dir.resolve("lib")).resolve("activities.jar"));
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

    static String runDocument(String doc, String... params) throws Exception {
        List<String> args = new ArrayList<>(List.of("run", dir.resolve(doc + ".mpfl.xml").toString(), "--engine",
                cluster.engine().url(), "--data", cluster.engine().config().dataDir().toString(), "--json"));
        for (String p : params) {
            args.add("--param");
            args.add(p);
        }
        MpflcCall c = mpflc(args.toArray(String[]::new));
        JsonNode result = Json.MAPPER.readTree(c.out());
        return result.path("run").asText();
    }

    /** The trace as {@code mpflc trace RUN --engine URL -o FILE} writes it. */
    static JsonNode trace(String run) throws Exception {
        Path file = dir.resolve(run + ".trace.json");
        MpflcCall c = mpflc("trace", run, "--engine", cluster.engine().url(), "-o", file.toString());
        assertEquals(0, c.exit(), c.err());
        assertTrue(c.err().contains("trace events of run " + run), c.err());
        return Json.MAPPER.readTree(file.toFile());
    }

    static JsonNode detail(String run) throws Exception {
        return Http.get(cluster.engine().url() + "/api/runs/" + run).json();
    }

    @Test
    void pointToPointRunTraceMatchesTheMessageCounters() throws Exception {
        String run = runDocument("trace", "ranks=3", "rounds=4");
        JsonNode detail = detail(run);
        assertEquals("SUCCEEDED", detail.path("state").asText(), detail.toString());
        JsonNode events = TraceEventFormat.check(trace(run), detail, true);
        TraceEventFormat.sendsAndReceivesMatchCounters(events, detail);
        int[] computes = new int[3];
        int done = 0;
        for (JsonNode e : events) {
            if (e.path("ph").asText().equals("X") && e.path("cat").asText().equals("compute")) {
                computes[e.get("pid").asInt() - 1]++;
                assertTrue(e.path("name").asText().equals("compute gen.Twice"), e.toString());
                assertTrue(e.path("args").path("location").asText().matches(".*trace.mpfl.xml:(22|27):9"), e.toString());
            }
            if (e.path("ph").asText().equals("i") && e.path("name").asText().equals("done")) {
                done++;
            }
        }
        assertEquals("[4, 4, 4]", java.util.Arrays.toString(computes), "one compute span per round and rank");
        assertEquals(3, done, "every rank's end is an instant event");
    }

    @Test
    void collectivesHaveSpansWithRootAndBytesAndCheckpointsAreInstants() throws Exception {
        // the checkpoints ride on this run (not the point-to-point one): their allgather adds
        // messages that the point-to-point test's counters would have to leave out
        String run = runDocument("trace", "ranks=4", "rounds=2", "collectives=true", "checkpointEvery=1");
        JsonNode detail = detail(run);
        assertEquals("SUCCEEDED", detail.path("state").asText(), detail.toString());
        JsonNode events = TraceEventFormat.check(trace(run), detail, true);
        int allreduces = 0;
        int broadcasts = 0;
        long collectiveBytes = 0;
        for (JsonNode e : events) {
            if (!e.path("ph").asText().equals("X") || !e.path("cat").asText().equals("collective")) {
                continue;
            }
            assertTrue(e.path("args").has("bytes"), "a collective span says how many bytes the rank sent: " + e);
            collectiveBytes += e.path("args").path("bytes").asLong();
            if (e.path("name").asText().equals("allreduce")) {
                allreduces++;
            } else if (e.path("name").asText().equals("broadcast")) {
                broadcasts++;
                assertEquals(0, e.path("args").path("peer").asInt(), "a broadcast's peer is its root: " + e);
            }
        }
        assertEquals(4, allreduces, "an allreduce span on every rank");
        assertEquals(4, broadcasts, "a broadcast span on every rank");
        assertTrue(collectiveBytes > 0, "the collectives sent bytes");
        checkpointInstantsMatchTheRunRecord(events, detail);
    }

    /**
     * Every rank's operations track has one {@code checkpoint} instant per checkpoint the run record
     * says was taken, numbered as the record numbers them, each reporting its part stored.
     */
    static void checkpointInstantsMatchTheRunRecord(JsonNode events, JsonNode detail) {
        List<Long> taken = new ArrayList<>();
        detail.path("checkpoints").forEach(c -> {
            assertTrue(c.path("complete").asBoolean(), "every checkpoint complete: " + c);
            taken.add(c.path("seq").asLong());
        });
        assertEquals(2, detail.path("checkpointsTaken").asInt(), "one checkpoint per round: " + detail.path("checkpoints"));
        assertEquals(List.of(1L, 2L), taken, detail.path("checkpoints").toString());
        Map<Integer, List<Long>> instants = new TreeMap<>();
        for (JsonNode e : events) {
            if (e.path("ph").asText().equals("i") && e.path("name").asText().equals("checkpoint")) {
                assertEquals(1, e.path("tid").asInt(), "on the rank's operations thread: " + e);
                assertTrue(e.path("args").path("value").path("stored").asBoolean(), "the part was stored: " + e);
                instants.computeIfAbsent(e.path("pid").asInt() - 1, r -> new ArrayList<>()).add(e.path("args").path("value").path("checkpoint").asLong());
            }
        }
        for (JsonNode rank : detail.path("ranks")) {
            List<Long> seen = new ArrayList<>(instants.getOrDefault(rank.path("rank").asInt(), List.of()));
            java.util.Collections.sort(seen);
            assertEquals(taken, seen, "rank " + rank.path("rank").asInt() + "'s checkpoint instants: " + instants);
        }
        assertEquals(detail.path("ranks").size(), instants.size(), "checkpoint instants only on the run's ranks: " + instants);
    }

    @Test
    void aFaultIsAnInstantWithItsLocation() throws Exception {
        String run = runDocument("failing");
        JsonNode detail = detail(run);
        assertEquals("FAILED", detail.path("state").asText());
        JsonNode events = TraceEventFormat.check(trace(run), detail, false);
        boolean fault = false;
        for (JsonNode e : events) {
            if (e.path("ph").asText().equals("i") && e.path("name").asText().equals("fault")) {
                fault = true;
                assertTrue(e.path("args").path("location").asText().endsWith("failing.mpfl.xml:8:33"), e.toString());
                assertEquals(detail.path("error").path("rank").asInt() + 1, e.path("pid").asInt(), "on the failing rank's track");
            }
        }
        assertTrue(fault, "the fault is an instant event");
    }

    @Test
    void anUnknownRunIsAClearErrorNotATrace() throws Exception {
        assertEquals(404, Http.get(cluster.engine().url() + "/api/runs/no-such-run/trace").status());
        MpflcCall c = mpflc("trace", "no-such-run", "--engine", cluster.engine().url());
        assertEquals(1, c.exit());
        assertTrue(c.err().contains("no-such-run"), c.err());
        MpflcCall usage = mpflc("trace", "--engine", cluster.engine().url());
        assertEquals(2, usage.exit());
        assertTrue(usage.err().contains("missing RUN"), usage.err());
    }
}
