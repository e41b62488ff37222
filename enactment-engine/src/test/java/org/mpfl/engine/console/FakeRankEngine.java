package org.mpfl.engine.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.HostCalls;
import org.mpfl.testing.Http;
import org.mpfl.engine.run.FakeRanks;
import org.mpfl.engine.run.RunSettings;
import org.mpfl.ir.files.FileTrees;

/**
 * A real engine (REST API, store, console) whose ranks are played in-process by {@link FakeRanks} on
 * two announced hosts, {@code h0} and {@code h1}, that offer the service {@code ring}: the console's
 * browser tests drive the ranks' events themselves. {@link #close()} stops the engine and deletes its
 * data directory.
 */
final class FakeRankEngine implements AutoCloseable {
    /** What a fake rank does after it was recorded as started (e.g. wait for the abort). */
    interface AfterStart {
        void play(FakeRanks.Rank rank) throws Exception;
    }

    /**
     * How long the engine waits for a fake host to accept {@code run}. The ranks are in-process and accept
     * at once, but an answer later than the bound (a loaded machine: CI's parallel forks) makes the engine
     * give the attempt up and quarantine both hosts (the fake ones answer no health probe): the test's
     * events then go to a domain the run left and the next tests' runs cannot be placed (reproduced with
     * run calls returning after 2.5 s against the 2-s bound these tests had; CI failed four console tests
     * with that signature). What these tests check is the console, not the fan-out's bound.
     */
    static final Duration FAN_OUT_TIMEOUT = Duration.ofSeconds(60);

    final Path dataDir;
    final Engine engine;
    private final List<FakeRanks.Rank> started;

    private FakeRankEngine(Path dataDir, Engine engine, List<FakeRanks.Rank> started) {
        this.dataDir = dataDir;
        this.engine = engine;
        this.started = started;
    }

    static FakeRankEngine start(String name, RunSettings settings, Duration heartbeatTimeout, int capacity, AfterStart afterStart)
            throws Exception {
        Path dataDir = Files.createTempDirectory("mpfl-console-" + name + "-");
        List<FakeRanks.Rank> started = new CopyOnWriteArrayList<>();
        Engine engine = Engine.start(new EngineConfig().port(0).dataDir(dataDir).invoker(new FakeRanks(r -> {
            started.add(r);
            afterStart.play(r);
        })).runSettings(settings).heartbeatTimeout(heartbeatTimeout));
        FakeRankEngine fakes = new FakeRankEngine(dataDir, engine, started);
        try {
            for (int h = 0; h < 2; h++) {
                Http.Answer a = HostCalls.announce(engine, Map.of("hostId", "h" + h,
                        "soapUrl", "http://127.0.0.1:1/axis2/services/h" + h, "services", List.of("ring"), "capacity", capacity));
                assertEquals(201, a.status(), a.body());
            }
        } catch (Exception | AssertionError e) {
            fakes.close();
            throw e;
        }
        return fakes;
    }

    /**
     * The ranks of the {@code attempt}-th domain (1 = the first) of run {@code runId} ({@code null}: of
     * any run), by rank, once all {@code size} of them have started; fails after {@code wait}.
     */
    List<FakeRanks.Rank> ranks(String runId, int attempt, int size, Duration wait) throws InterruptedException {
        long end = System.currentTimeMillis() + wait.toMillis();
        for (;;) {
            List<FakeRanks.Rank> ofRun = started.stream()
                    .filter(r -> runId == null || r.request().callbackUrl().contains("/runs/" + runId + "/")).toList();
            List<String> domains = ofRun.stream().map(r -> r.request().domainId()).distinct().toList();
            if (domains.size() >= attempt) {
                String d = domains.get(attempt - 1);
                List<FakeRanks.Rank> rs = ofRun.stream().filter(r -> r.request().domainId().equals(d))
                        .sorted(Comparator.comparingInt(FakeRanks.Rank::rank)).toList();
                if (rs.size() == size) {
                    return rs;
                }
            }
            assertTrue(System.currentTimeMillis() < end, "attempt " + attempt + (runId == null ? "" : " of run " + runId) + " did not start");
            Thread.sleep(20);
        }
    }

    @Override
    public void close() {
        try {
            engine.close();
        } finally {
            FileTrees.deleteQuietly(dataDir);
        }
    }
}
