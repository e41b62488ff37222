package org.mpfl.bench.workflow;

import org.mpfl.ir.cli.Commands;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mpfl.ir.cli.UsageException;
import org.mpfl.ir.files.FileTrees;
import org.mpfl.testing.StartsProcesses;

/** Options, JSON shape and a tiny real run of {@code mpflc bench startup}. */
@Timeout(240)
class StartupBenchCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> ROW_KEYS = List.of("ranks", "first_startup_ms", "startup_ms", "first_end_to_end_ms", "end_to_end_ms");

    @Test
    void options() throws Exception {
        StartupBenchCommand.Options d = StartupBenchCommand.parse(List.of());
        assertFalse(d.json());
        assertEquals(List.of(4, 16, 64), d.ranks());
        assertEquals(2, d.hosts());
        assertEquals(5, d.repeat());
        assertEquals(0, d.capacity());
        assertEquals(BenchCommands.DEFAULT_HOST_JVM_ARGS, d.hostJvmArgs());
        assertNull(d.plot());
        StartupBenchCommand.Options o = StartupBenchCommand.parse(List.of("--json", "--ranks", "2,8", "--hosts", "3", "--repeat", "1",
                "--capacity", "1", "--host-jvm-arg", "-Xmx256m", "--plot", "/tmp/s.png"));
        assertTrue(o.json());
        assertEquals(List.of(2, 8), o.ranks());
        assertEquals(3, o.hosts());
        assertEquals(1, o.repeat());
        assertEquals(1, o.capacity());
        assertEquals(List.of("-Xmx256m"), o.hostJvmArgs());
        assertEquals(Path.of("/tmp/s.png"), o.plot());
        assertThrows(UsageException.class, () -> StartupBenchCommand.parse(List.of("--repeat", "0")));
        assertThrows(UsageException.class, () -> StartupBenchCommand.parse(List.of("--ranks", "4,x")));
        assertThrows(UsageException.class, () -> StartupBenchCommand.parse(List.of("--hosts")));
        assertThrows(UsageException.class, () -> StartupBenchCommand.parse(List.of("--bogus")));
    }

    @Test
    void medianOfTheWarmRuns() {
        assertEquals(3.0, StartupBenchmark.median(new double[] {9, 1, 3}));
        assertEquals(2.5, StartupBenchmark.median(new double[] {4, 1, 2, 3}));
        assertTrue(Double.isNaN(StartupBenchmark.median(new double[0])));
    }

    /** A tiny real run through mpflc's dispatch (bench → "bench startup"): the documented JSON object, and a plot. */
    @Test
    @StartsProcesses
    void jsonOnATinyRun() throws Exception {
        Path dir = Files.createTempDirectory("mpfl-bench-startup-test-");
        try {
            Path png = dir.resolve("startup.png");
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int code = Commands.run(List.of("bench", "startup", "--json", "--ranks", "2", "--repeat", "1", "--host-jvm-arg", "-Xmx256m",
                    "--plot", png.toString()), new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
            assertEquals(0, code, err.toString(StandardCharsets.UTF_8));
            String text = out.toString(StandardCharsets.UTF_8).trim();
            JsonNode all = JSON.readTree(text);
            assertEquals(List.of("results", "empty"), fieldNames(all), text);
            JsonNode results = all.get("results");
            assertEquals(1, results.size(), text);
            JsonNode r = results.get(0);
            assertEquals(ROW_KEYS, fieldNames(r), text);
            assertEquals(2, r.get("ranks").asInt());
            for (String k : ROW_KEYS.subList(1, ROW_KEYS.size())) {
                assertTrue(r.get(k).isNumber() && r.get(k).asDouble() >= 0, k + " in " + text);
            }
            // the client sees the end only after the engine had every rank running
            assertTrue(r.get("end_to_end_ms").asDouble() >= r.get("startup_ms").asDouble(), text);
            JsonNode empty = all.get("empty");
            assertEquals(ROW_KEYS, fieldNames(empty), text);
            assertEquals(1, empty.get("ranks").asInt());
            assertTrue(empty.get("end_to_end_ms").asDouble() > 0, text);
            String progress = err.toString(StandardCharsets.UTF_8);
            assertTrue(progress.contains("[bench startup] p=2") && progress.contains("[bench startup] empty workflow"), progress);
            byte[] head = java.util.Arrays.copyOf(Files.readAllBytes(png), 4);
            assertEquals("PNG", new String(head, 1, 3, StandardCharsets.US_ASCII));
        } finally {
            FileTrees.deleteQuietly(dir);
        }
    }

    @Test
    void tableNamesEveryColumn() {
        StartupBenchmark.Results r = new StartupBenchmark.Results(List.of(new StartupBenchmark.Result(4, 900, 120, 1100, 300)),
                new StartupBenchmark.Result(1, 400, 30, 500, 80));
        ByteArrayOutputStream table = new ByteArrayOutputStream();
        StartupBenchCommand.printTable(r, 5, new PrintStream(table, true, StandardCharsets.UTF_8));
        String t = table.toString(StandardCharsets.UTF_8);
        for (String k : ROW_KEYS) {
            assertTrue(t.contains(k), t);
        }
        assertTrue(t.contains("empty") && t.contains("120.0") && t.contains("80.0"), t);
    }

    private static List<String> fieldNames(JsonNode n) {
        List<String> names = new ArrayList<>();
        n.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
