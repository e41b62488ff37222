package org.mpfl.bench.collective;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import org.mpfl.bench.PeerResults;
import org.mpfl.bench.PeerRuns;
import org.mpfl.ir.cli.UsageException;

/** The command's output formats, without running the benchmark (re-reading saved results). */
class CollectivesBenchCommandTest {
    private static final List<CollectivesBenchmark.Result> RESULTS = List.of(
            new CollectivesBenchmark.Result("bcast", "auto", "auto", 8, 300, 720_000, 1189.3, 900.1, 1300.7, 40),
            new CollectivesBenchmark.Result("barrier", "binomial", "soap", 4, 0, 0, 159.0, 120.0, 170.0, 1000));

    private static Path peers() throws Exception {
        return Path.of(CollectivesBenchCommandTest.class.getResource("/peers").toURI());
    }

    @Test
    void jsonHasTheDocumentedFieldsAndRoundTrips(@TempDir Path dir) throws Exception {
        PeerResults stored = PeerRuns.stored(peers());
        String json = CollectivesBenchCommand.toJson(RESULTS, stored);
        @SuppressWarnings("unchecked")
        Map<String, Object> all = new ObjectMapper().readValue(json, Map.class);
        @SuppressWarnings("unchecked")
        Map<String, Object> first = ((List<Map<String, Object>>) all.get("results")).get(0);
        for (String key : List.of("op", "algorithm", "transport", "p", "n", "bytes", "median_us", "mpj_mode", "mpj_us", "ompi_us")) {
            assertTrue(first.containsKey(key), key);
        }
        assertEquals(1189.3, ((Number) first.get("median_us")).doubleValue());
        assertEquals(4844.6, ((Number) first.get("mpj_us")).doubleValue());
        assertEquals(1063.4, ((Number) first.get("ompi_us")).doubleValue());
        CollectivesBenchCommand.Saved back = CollectivesBenchCommand.fromJson(json);
        assertEquals(RESULTS, back.results());
        assertEquals(156.2, back.peers().us(CollectivesBenchCommand.MPJ, "barrier", 4, 0));
        assertEquals(json, CollectivesBenchCommand.toJson(back.results(), back.peers()), "the peers' numbers are saved with the run");

        Path saved = dir.resolve("r.json");
        Files.writeString(saved, json);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code = new CollectivesBenchCommand().run(List.of("--from", saved.toString(), "--json",
                "--plot", dir.resolve("r.png").toString()), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        assertEquals(0, code);
        assertEquals(json, out.toString(StandardCharsets.UTF_8).trim());
        assertTrue(Files.size(dir.resolve("r.png")) > 1000);
    }

    @Test
    void tableComparesWithMpjExpressNiodev(@TempDir Path dir) throws Exception {
        Path saved = dir.resolve("r.json");
        // an older file without the peers' numbers: the stored reference is read from --peers
        Files.writeString(saved, "{\"results\":" + new ObjectMapper().writeValueAsString(
                new ObjectMapper().readValue(CollectivesBenchCommand.toJson(RESULTS, PeerResults.empty()), Map.class).get("results")) + "}");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new CollectivesBenchCommand().run(List.of("--from", saved.toString(), "--peers", peers().toString()),
                new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
        String table = out.toString(StandardCharsets.UTF_8);
        assertTrue(table.contains("4844.6"), table); // MPJ niodev bcast p=8 N=300
        assertTrue(table.contains("0.25"), table);
        assertTrue(table.contains("mpj_us: MPJ Express 0.44 niodev, double[]: stored reference"), table);
    }

    @Test
    void options() throws Exception {
        CollectivesBenchCommand.Options o = CollectivesBenchCommand.parse(List.of("--with-peers", "--ranks", "2,4", "--sizes", "10",
                "--ops", "bcast", "--scale", "0.1", "--peers", "/p"));
        assertEquals(List.of(2, 4), o.ranks());
        assertEquals(List.of(10), o.sizes());
        assertEquals(new PeerRuns.Options(true, true, Path.of("/p"), 0), o.peers());
        assertEquals(new PeerRuns.Request("coll", List.of(2, 4), 0.1, List.of("niodev"), List.of("tcp")),
                CollectivesBenchCommand.peerRequest(o));
        assertEquals(new PeerRuns.Options(true, false, null, 7),
                CollectivesBenchCommand.parse(List.of("--with-mpj", "--quiet-wait", "7")).peers());
        assertEquals(PeerRuns.Options.defaults(), CollectivesBenchCommand.parse(List.of()).peers());
    }

    @Test
    void badOptionsAreUsageErrors() {
        PrintStream sink = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        assertThrows(UsageException.class, () -> new CollectivesBenchCommand().run(List.of("--transport", "pigeon"), sink, sink));
        assertThrows(UsageException.class, () -> new CollectivesBenchCommand().run(List.of("--ops", "scan"), sink, sink));
        assertThrows(UsageException.class, () -> new CollectivesBenchCommand().run(List.of("--ranks"), sink, sink));
        assertThrows(UsageException.class, () -> new CollectivesBenchCommand().run(List.of("--ranks", "2,x"), sink, sink));
        assertThrows(UsageException.class, () -> new CollectivesBenchCommand().run(List.of("--peers"), sink, sink));
    }
}
