package org.mpfl.bench.workflow;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mpfl.bench.mediator.MediatedWorkflow;
import org.mpfl.bench.mediator.Mediator;
import org.mpfl.bench.mediator.exchange.AllgatherExchange;
import org.mpfl.bench.mediator.exchange.ExchangeInit;
import org.mpfl.bench.mediator.exchange.ExchangeUpdate;
import org.mpfl.bench.mediator.exchange.RankOfProcess;
import org.mpfl.ir.files.FileTrees;
import org.mpfl.testing.StartsProcesses;

/**
 * The mediator mode over two real service-host processes: the exchange workflow enacted by the
 * mediator ends with exactly the checksums of the same document run with direct messaging, and both
 * match the activities applied in-process; a failing step names its round and rank.
 */
@Timeout(240)
@StartsProcesses
class MediatorModeTest {
    static final int P = 2;
    static final int ITERATIONS = 3;
    static final int DOUBLES = 1000;
    static Path dir;
    static BenchCluster cluster;
    static Mediator mediator;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("mpfl-mediator-test-");
        cluster = BenchCluster.start(dir.resolve("engine"), 2, 1, List.of("-Xmx256m"));
        mediator = new Mediator(Duration.ofSeconds(60), cluster.stepAuthorizations());
    }

    @AfterAll
    static void stop() {
        if (mediator != null) {
            mediator.close();
        }
        if (cluster != null) {
            cluster.close();
        }
        FileTrees.deleteQuietly(dir);
    }

    @Test
    void mediatorComputesWhatDirectMessagingComputes() throws Exception {
        Path document = dir.resolve("exchange.mpfl.xml");
        Files.writeString(document, AllgatherExchange.document(), StandardCharsets.UTF_8);
        JsonNode run = DocumentRuns.run(cluster.client(), document, Map.of("ranks", Integer.toString(P),
                "iterations", Integer.toString(ITERATIONS), "doubles", Integer.toString(DOUBLES)), Duration.ofSeconds(120));
        assertEquals("SUCCEEDED", run.path("state").asText(), () -> DocumentRuns.describeFailure(run));
        double[] direct = new double[P];
        for (int r = 0; r < P; r++) {
            direct[r] = DocumentRuns.output(run, "checksum", r).asDouble();
        }

        AllgatherExchange mediated = new AllgatherExchange(P, ITERATIONS, DOUBLES);
        List<String> services = Mediator.placeRanks(cluster.engine().registry(), P);
        assertEquals(2, services.stream().distinct().count(), "with capacity 1 the two ranks are on different hosts: " + services);
        mediator.run(mediated, services, null);

        double[] expected = inProcess();
        assertArrayEquals(expected, direct, 0.0, "direct messaging");
        assertArrayEquals(expected, mediated.checksums(), 0.0, "mediator");
    }

    @Test
    void aFailingStepNamesItsRoundAndRank() throws Exception {
        MediatedWorkflow broken = new MediatedWorkflow() {
            @Override
            public int size() {
                return P;
            }

            @Override
            public int rounds() {
                return 1;
            }

            @Override
            public String activity(int round) {
                return "org.mpfl.bench.mediator.exchange.NoSuchActivity";
            }

            @Override
            public Map<String, Object> inputs(int round, int rank) {
                return Map.of("n", 3);
            }

            @Override
            public void accept(int round, int rank, Map<String, Object> outputs) {
            }
        };
        IOException e = assertThrows(IOException.class,
                () -> mediator.run(broken, Mediator.placeRanks(cluster.engine().registry(), P), null));
        assertTrue(e.getMessage().contains("round 0, rank 0") && e.getMessage().contains("NoSuchActivity"), e.getMessage());
    }

    @Test
    void aStepWithoutTheHostsKeyIsRefused() throws Exception {
        // the admin token is not a host's key, and neither is another host's key
        java.util.List<String> urls = Mediator.placeRanks(cluster.engine().registry(), P);
        java.util.function.Function<String, String> keys = cluster.stepAuthorizations();
        java.util.function.Function<String, String> swapped = url -> keys.apply(urls.stream().filter(u -> !u.equals(url))
                .findFirst().orElseThrow());
        for (java.util.function.Function<String, String> wrong : java.util.List.<java.util.function.Function<String, String>>of(
                url -> "Bearer " + cluster.engine().token(), swapped)) {
            try (Mediator stranger = new Mediator(Duration.ofSeconds(30), wrong)) {
                IOException e = assertThrows(IOException.class, () -> stranger.run(new AllgatherExchange(P, 1, 10), urls, null));
                assertTrue(e.getMessage().contains("not the engine of this host"), e.getMessage());
            }
        }
    }

    @Test
    void aStepWithoutAnyKeyIsRefused() throws Exception {
        try (Mediator stranger = new Mediator(Duration.ofSeconds(30), url -> null)) {
            IOException e = assertThrows(IOException.class, () -> stranger.run(new AllgatherExchange(P, 1, 10),
                    Mediator.placeRanks(cluster.engine().registry(), P), null));
            assertTrue(e.getMessage().contains("not the engine of this host"), e.getMessage());
        }
    }

    /** The workflow's activities applied in this JVM, allgather by concatenation. */
    private static double[] inProcess() throws Exception {
        double[][] blocks = new double[P][];
        double[] sums = new double[P];
        for (int r = 0; r < P; r++) {
            blocks[r] = (double[]) new ExchangeInit().execute(Map.of("n", DOUBLES), new RankOfProcess(r, P)).get("block");
        }
        for (int it = 0; it < ITERATIONS; it++) {
            double[] all = new double[P * DOUBLES];
            for (int r = 0; r < P; r++) {
                System.arraycopy(blocks[r], 0, all, r * DOUBLES, DOUBLES);
            }
            for (int r = 0; r < P; r++) {
                Map<String, Object> out = new ExchangeUpdate().execute(Map.of("all", all), new RankOfProcess(r, P));
                blocks[r] = (double[]) out.get("block");
                sums[r] = (Double) out.get("checksum");
            }
        }
        return sums;
    }
}
