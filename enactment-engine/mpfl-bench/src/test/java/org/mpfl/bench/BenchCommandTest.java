package org.mpfl.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.ir.cli.UsageException;

/** {@code bench p2p}'s options and output formats, without running the benchmark. */
class BenchCommandTest {
    private static final P2pBenchmark.Results RESULTS = new P2pBenchmark.Results(
            List.of(new P2pBenchmark.PingPong("binary", 1, 8, 60.0, 30.0), new P2pBenchmark.PingPong("binary", 160, 204_800, 700.0, 350.0),
                    new P2pBenchmark.PingPong("local", 160, 204_800, 100.0, 350.0)),
            List.of(new P2pBenchmark.PingStarPong("binary", 160, 204_800, 300.0, 200.0)));

    @Test
    void options() throws Exception {
        BenchCommand.Options o = BenchCommand.parse(List.of("--with-mpj", "--sizes", "1,160", "--transports", "binary",
                "--scale", "0.2", "--quiet-wait", "5", "--peers", "/somewhere"));
        assertEquals(List.of(1, 160), o.sizes());
        assertEquals(List.of("binary"), o.transports());
        assertEquals(0.2, o.scale());
        assertEquals(new PeerRuns.Options(true, false, Path.of("/somewhere"), 5), o.peers());
        assertEquals(BenchCommand.DEFAULT_HOST_JVM_ARGS, o.hostJvmArgs());

        BenchCommand.Options d = BenchCommand.parse(List.of());
        assertEquals(BenchCommand.SIZES, d.sizes());
        assertEquals(List.of("soap", "binary", "local"), d.transports());
        assertEquals(PeerRuns.Options.defaults(), d.peers());
        assertEquals(new PeerRuns.Options(true, true, null, 0), BenchCommand.parse(List.of("--with-peers")).peers());
        assertEquals(new PeerRuns.Options(false, true, null, 0), BenchCommand.parse(List.of("--with-ompi")).peers());

        for (List<String> bad : List.of(List.of("--transports", "pigeon"), List.of("--sizes", "1,x"), List.of("--scale"),
                List.of("--peers"), List.of("--with-mpi"))) {
            assertThrows(UsageException.class, () -> BenchCommand.parse(bad), bad.toString());
        }
    }

    @Test
    void thePeersRunWhatTheTransportsAreComparedWith() throws Exception {
        PeerRuns.Request r = BenchCommand.peerRequest(BenchCommand.parse(List.of("--transports", "binary,soap", "--scale", "0.2")));
        assertEquals(new PeerRuns.Request("p2p", List.of(2), 0.2, List.of("niodev"), List.of("tcp")), r);
        PeerRuns.Request all = BenchCommand.peerRequest(BenchCommand.parse(List.of()));
        assertEquals(List.of("niodev", "multicore"), all.mpjDevices());
        assertEquals(List.of("tcp", "shm"), all.ompiModes());
    }

    @Test
    void jsonRowsCarryThePeersNumbersAndRoundTrip(@TempDir Path dir) throws Exception {
        PeerResults peers = PeerRuns.stored(PeerResultsTest.fixture());
        String json = BenchCommand.toJson(RESULTS, peers);
        @SuppressWarnings("unchecked")
        Map<String, Object> all = new ObjectMapper().readValue(json, Map.class);
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> pp = (List<Map<String, Object>>) all.get("pingpong");
        for (String key : List.of("transport", "n", "bytes", "mpiws_us", "socket_us", "mpj_mode", "mpj_us", "ompi_mode", "ompi_us")) {
            assertTrue(pp.get(0).containsKey(key), key);
        }
        assertEquals(766.1, ((Number) pp.get(1).get("mpj_us")).doubleValue());
        assertEquals("niodev", pp.get(1).get("mpj_mode"));
        assertEquals(143.7, ((Number) pp.get(2).get("mpj_us")).doubleValue(), "local is compared with multicore");
        assertNull(pp.get(2).get("ompi_us"), "no Open MPI shm row in the fixture");
        @SuppressWarnings("unchecked")
        Map<String, Object> psp = ((List<Map<String, Object>>) all.get("pingstarpong")).get(0);
        assertEquals(392.2, ((Number) psp.get("mpj_us_per_msg")).doubleValue());
        @SuppressWarnings("unchecked")
        Map<String, String> sources = (Map<String, String>) all.get("peers");
        assertTrue(sources.get("mpj").startsWith("stored reference"), sources.toString());

        BenchCommand.Saved saved = BenchCommand.fromJson(json);
        assertEquals(RESULTS, saved.results());
        assertEquals(766.1, saved.peers().us(BenchCommand.mpj("binary"), PeerResults.PINGPONG, 2, 160));
        assertEquals(json, BenchCommand.toJson(saved.results(), saved.peers()));

        Path png = dir.resolve("p2p.png");
        BenchCommand.plot(saved.results(), saved.peers(), png);
        assertTrue(Files.size(png) > 1000);
    }

    @Test
    void tableShowsRatiosAndWhereThePeersNumbersComeFrom() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BenchCommand.printTables(RESULTS, PeerRuns.stored(PeerResultsTest.fixture()), new PrintStream(out, true, StandardCharsets.UTF_8));
        String table = out.toString(StandardCharsets.UTF_8);
        assertTrue(table.contains("766.1"), table);
        assertTrue(table.contains("0.91"), table); // 700 / 766.14
        assertTrue(table.contains("mpj_us: MPJ Express 0.44, double[] (niodev for soap/binary, multicore for local): stored reference"), table);
        assertTrue(table.contains(" - "), "a size the peer has no number for");
    }

    @Test
    void fromASavedRunPrintsAndPlotsItWithoutMeasuring(@TempDir Path dir) throws Exception {
        Path saved = dir.resolve("p2p.json");
        Files.writeString(saved, BenchCommand.toJson(RESULTS, PeerRuns.stored(PeerResultsTest.fixture())) + "\n");
        Path png = dir.resolve("again.png");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = new BenchCommand().run(List.of("p2p", "--from", saved.toString(), "--plot", png.toString()),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(0, code, err.toString(StandardCharsets.UTF_8));
        String table = out.toString(StandardCharsets.UTF_8);
        assertTrue(table.contains("766.1"), "the saved run's peer numbers: " + table);
        assertTrue(table.contains("0.91"), "its ratios (700 / 766.14): " + table);
        assertTrue(Files.size(png) > 1000, "the plot");
        assertFalse(err.toString(StandardCharsets.UTF_8).contains("warming up"), "nothing measured: " + err);

        UsageException missing = assertThrows(UsageException.class,
                () -> BenchCommand.parse(List.of("--from", dir.resolve("none.json").toString())));
        assertTrue(missing.getMessage().contains("no such file"), missing.getMessage());
    }
}
