package org.mpfl.runtime.collective.bench;

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
import org.mpfl.compiler.cli.UsageException;

/** The command's output formats, without running the benchmark (re-reading saved results). */
class CollectivesBenchCommandTest {
    private static final List<CollectivesBenchmark.Result> RESULTS = List.of(
            new CollectivesBenchmark.Result("bcast", "auto", "auto", 8, 300, 720_000, 1189.3, 900.1, 1300.7, 40),
            new CollectivesBenchmark.Result("barrier", "binomial", "soap", 4, 0, 0, 159.0, 120.0, 170.0, 1000));

    @Test
    void jsonHasTheDocumentedFieldsAndRoundTrips(@TempDir Path dir) throws Exception {
        String json = CollectivesBenchCommand.toJson(RESULTS);
        @SuppressWarnings("unchecked")
        Map<String, Object> all = new ObjectMapper().readValue(json, Map.class);
        @SuppressWarnings("unchecked")
        Map<String, Object> first = ((List<Map<String, Object>>) all.get("results")).get(0);
        for (String key : List.of("op", "algorithm", "transport", "p", "n", "bytes", "median_us")) {
            assertTrue(first.containsKey(key), key);
        }
        assertEquals(1189.3, ((Number) first.get("median_us")).doubleValue());
        assertEquals(RESULTS, CollectivesBenchCommand.fromJson(json));

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
        Files.writeString(saved, CollectivesBenchCommand.toJson(RESULTS));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new CollectivesBenchCommand().run(List.of("--from", saved.toString()), new PrintStream(out, true, StandardCharsets.UTF_8),
                System.err);
        String table = out.toString(StandardCharsets.UTF_8);
        assertTrue(table.contains("4844.6"), table); // MPJ niodev bcast p=8 N=300
        assertTrue(table.contains("0.25"), table);
    }

    @Test
    void badOptionsAreUsageErrors() {
        PrintStream sink = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        assertThrows(UsageException.class, () -> new CollectivesBenchCommand().run(List.of("--transport", "pigeon"), sink, sink));
        assertThrows(UsageException.class, () -> new CollectivesBenchCommand().run(List.of("--ops", "scan"), sink, sink));
        assertThrows(UsageException.class, () -> new CollectivesBenchCommand().run(List.of("--ranks"), sink, sink));
    }
}
