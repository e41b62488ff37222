package org.mpfl.engine.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.HostCalls;
import org.mpfl.testing.Http;
import org.mpfl.testing.Await;

/**
 * The run queue's throughput: many tiny queued runs (1 rank, in-process fake ranks that end at once)
 * behind a run that holds the one host (capacity 4), released at once; every queued run succeeds, the
 * host never has more than 4 live ranks, and the rate at which the queue places and ends them is
 * printed ({@code QUEUE-THROUGHPUT: …}, docs/benchmarks.md). 50 runs by default (12 times the capacity: the queue
 * drains in many placement rounds); {@code
 * -Dmpfl.queue.runs=1000} for the figure.
 */
@Timeout(600)
class RunQueueThroughputTest {
    @TempDir
    Path dir;
    Engine engine;
    final Set<String> open = ConcurrentHashMap.newKeySet();
    final AtomicInteger live = new AtomicInteger();
    final AtomicInteger mostLive = new AtomicInteger();

    @AfterEach
    void stop() {
        open.add("hold");
        if (engine != null) {
            engine.close();
        }
    }

    @Test
    void queuedTinyRunsAreAllPlacedWithinCapacity() throws Exception {
        int runs = Integer.getInteger("mpfl.queue.runs", 50);
        FakeRanks fakes = new FakeRanks(r -> {
            mostLive.accumulateAndGet(live.incrementAndGet(), Math::max);
            try {
                if ("hold".equals(r.request().params().get("gate"))) {
                    long end = System.nanoTime() + Duration.ofSeconds(120).toNanos();
                    while (!open.contains("hold") && System.nanoTime() < end) {
                        Thread.sleep(20);
                    }
                }
            } finally {
                live.decrementAndGet();
            }
            r.state("DONE");
        });
        // the host announces once and never beats: it must outlive the submission of every run
        engine = Engine.start(new EngineConfig().port(0).dataDir(dir).invoker(fakes).runSettings(RunQueueTest.fast())
                .heartbeatTimeout(Duration.ofMinutes(15)));
        assertEquals(201, HostCalls.announce(engine, Map.of("hostId", "h0", "soapUrl", "http://127.0.0.1:1/axis2/services/h0",
                "services", List.of("ring"), "capacity", 4)).status());
        String holder = start(4, "hold");
        Await.until(Duration.ofSeconds(30), "the holder runs", () -> state(holder).equals("RUNNING"));
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < runs; i++) {
            ids.add(start(1, "none"));
        }
        Await.until(Duration.ofSeconds(60), "every tiny run queued",
                () -> Http.get(engine.url() + "/api/runs?state=QUEUED&limit=10000").json().size() == runs);

        long t0 = System.nanoTime();
        open.add("hold");
        // generous: 1,000 runs at the slowest rate seen on the loaded 2-core machine take well under it
        Await.until(Duration.ofSeconds(400), () -> "every queued run ended (the runs not listed as SUCCEEDED, with their own"
                + " page's state: " + ownStates(runs + 1) + ")", () -> runsNotSucceeded(runs + 1), List::isEmpty);
        double seconds = (System.nanoTime() - t0) / 1e9;
        for (String id : List.of(ids.get(0), ids.get(runs - 1))) {
            assertEquals("SUCCEEDED", state(id));
        }
        assertTrue(mostLive.get() <= 4, "never more live ranks than the host's capacity 4, saw " + mostLive.get());
        System.out.printf("QUEUE-THROUGHPUT: %d queued 1-rank runs placed and ended in %.2f s: %.1f runs/s (host capacity 4,"
                + " in-process fake ranks, load %s)%n", runs, seconds, runs / seconds,
                java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }

    private String start(int ranks, String gate) throws Exception {
        Http.Answer a = Http.post(engine.url() + "/api/runs", engine.token(), Map.of("plan", Map.of("workflow", "ring",
                "processes", List.of(Map.of("name", "ring", "service", "ring", "ranks", ranks))), "params", Map.of("gate", gate)));
        assertEquals(201, a.status(), a.body());
        return a.json().get("id").asText();
    }

    /**
     * The runs the engine does not list as SUCCEEDED ("ID STATE"); one entry more while the list does
     * not hold every run. Read on every poll, so it reads the list only.
     */
    private List<String> runsNotSucceeded(int expected) throws Exception {
        List<String> left = new ArrayList<>();
        JsonNode all = Http.get(engine.url() + "/api/runs?limit=10000").json();
        if (all.size() != expected) {
            left.add("the list holds " + all.size() + " runs, not " + expected);
        }
        for (JsonNode run : all) {
            if (!"SUCCEEDED".equals(run.path("state").asText())) {
                left.add(run.path("id").asText() + " " + run.path("state").asText());
            }
        }
        return left;
    }

    /** Each listed run's state on its own page (what a failure names; read once, when it fails). */
    private List<String> ownStates(int expected) {
        List<String> out = new ArrayList<>();
        List<String> listed;
        try {
            listed = runsNotSucceeded(expected);
        } catch (Exception e) {
            return List.of("the list cannot be read: " + e);
        }
        for (String entry : listed) {
            String id = entry.split(" ")[0];
            try {
                out.add(entry + " / " + state(id));
            } catch (Exception e) {
                out.add(entry);
            }
        }
        return out;
    }

    private String state(String id) throws Exception {
        JsonNode d = Http.get(engine.url() + "/api/runs/" + id).json();
        return d.path("state").asText();
    }
}
