package org.mpfl.bench.workflow;

import org.mpfl.ir.cli.Commands;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mpfl.ir.cli.UsageException;
import org.mpfl.ir.files.FileTrees;
import org.mpfl.testing.StartsProcesses;

/** Options, the checked values and a tiny real run of {@code mpflc bench lab} in network namespaces. */
@Timeout(300)
@StartsProcesses
class LabBenchCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The engine tests' convention (NetworkLab): set to 1 to skip, not fail, where namespaces cannot be made. */
    private static final String SKIP_ENV = "MPFL_SKIP_NETNS";
    private static final List<String> SCALE_KEYS = List.of("p", "iterations", "first_startup_ms", "startup_ms", "run_ms", "loop_ms",
            "kib_per_rank", "first_kib_per_rank", "host_rss_mib", "repeats");

    @Test
    void options() throws Exception {
        LabBenchCommand.Options d = LabBenchCommand.parse(List.of());
        assertFalse(d.json());
        assertEquals(4, d.hosts());
        assertEquals("1gbit", d.rate());
        assertEquals(List.of(16, 64, 256), d.ranks());
        assertEquals(List.of(4, 8), d.mediatorRanks());
        assertEquals(LabBenchCommand.DEFAULT_LAB_HOST_JVM_ARGS, d.hostJvmArgs());
        assertNull(d.plot());
        LabBenchCommand.Options o = LabBenchCommand.parse(List.of("--json", "--hosts", "2", "--rate", "none", "--ranks", "4,8",
                "--iterations", "7", "--repeat", "1", "--mediator-ranks", "2", "--kb", "1", "--mediator-iterations", "3",
                "--warmup-seconds", "0", "--host-jvm-arg", "-Xmx256m", "--plot", "/tmp/l.png"));
        assertTrue(o.json());
        assertEquals(2, o.hosts());
        assertNull(o.rate(), "--rate none: links not shaped");
        assertEquals(List.of(4, 8), o.ranks());
        assertEquals(7, o.iterations());
        assertEquals(List.of(2), o.mediatorRanks());
        assertEquals(128, o.doubles());
        assertEquals(3, o.mediatorIterations());
        assertEquals(0, o.warmupSeconds());
        assertEquals(List.of("-Xmx256m"), o.hostJvmArgs());
        assertEquals(Path.of("/tmp/l.png"), o.plot());
        assertEquals(100_000_000L, LabNetwork.bitsPerSecond("100mbit"));
        assertEquals(1_000_000_000L, LabNetwork.bitsPerSecond("1gbit"));
        for (List<String> bad : List.of(List.of("--rate", "fast"), List.of("--rate", "1gbps"), List.of("--ranks", "1,4"),
                List.of("--hosts", "201"), List.of("--iterations", "1001"), List.of("--repeat", "0"), List.of("--bogus"))) {
            assertThrows(UsageException.class, () -> LabBenchCommand.parse(bad), bad.toString());
        }
    }

    /** What the command checks every run against, computed the long way. */
    @Test
    void expectedRingTokenAndAllreduceTotal() {
        for (int p : List.of(2, 5, 256)) {
            for (int iterations : List.of(1, 3, 100)) {
                long token = 0;
                long total = 0;
                for (int r = 0; r < p; r++) {
                    token += r;
                }
                for (int i = 0; i < iterations; i++) {
                    for (int r = 0; r < p; r++) {
                        total += r + i;
                    }
                }
                assertEquals(token, ScaleBenchmark.expectedToken(p));
                assertEquals(total, ScaleBenchmark.expectedSum(p, iterations), "p=" + p + ", iterations=" + iterations);
            }
        }
    }

    /**
     * A tiny real lab through mpflc's dispatch: two hosts in namespaces on 1 Gbit/s links, both parts,
     * the documented JSON object and a plot; afterwards no namespace of this JVM's labs is left.
     */
    @Test
    void tinyLab() throws Exception {
        String missing = LabNetwork.missing(true);
        if (missing != null) {
            String message = "mpflc bench lab needs " + missing + "; set " + SKIP_ENV + "=1 to skip this where that is impossible";
            Assumptions.assumeFalse("1".equals(System.getenv(SKIP_ENV)), message);
            fail(message);
        }
        Path dir = Files.createTempDirectory("mpfl-bench-lab-test-");
        try {
            Path png = dir.resolve("lab.png");
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int code = Commands.run(List.of("bench", "lab", "--json", "--hosts", "2", "--ranks", "4", "--iterations", "3", "--repeat", "1",
                    "--mediator-ranks", "2", "--kb", "1", "--mediator-iterations", "2", "--warmup-seconds", "0",
                    "--host-jvm-arg", "-Xmx256m", "--plot", png.toString()),
                    new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
            String progress = err.toString(StandardCharsets.UTF_8);
            assertEquals(0, code, progress);
            String text = out.toString(StandardCharsets.UTF_8).trim();
            JsonNode all = JSON.readTree(text);
            assertEquals(List.of("hosts", "rate", "scale", "mediator"), fieldNames(all), text);
            assertEquals(2, all.get("hosts").asInt());
            assertEquals("1gbit", all.get("rate").asText());
            JsonNode scale = all.get("scale");
            assertEquals(1, scale.size(), text);
            assertEquals(SCALE_KEYS, fieldNames(scale.get(0)), text);
            assertEquals(4, scale.get(0).get("p").asInt());
            for (String k : List.of("first_startup_ms", "startup_ms", "run_ms", "loop_ms", "host_rss_mib")) {
                assertTrue(scale.get(0).get(k).asDouble() > 0, k + " in " + text);
            }
            JsonNode mediator = all.get("mediator");
            assertEquals(1, mediator.size(), text);
            assertEquals(2, mediator.get(0).get("p").asInt());
            assertTrue(mediator.get(0).get("direct_ms").asDouble() > 0 && mediator.get(0).get("mediator_ms").asDouble() > 0, text);
            assertTrue(progress.contains("shaped to 1gbit") && progress.contains("tbf"), progress);
            assertTrue(progress.contains("[bench lab] p=4") && progress.contains("[bench lab] p=2"), progress);
            byte[] head = java.util.Arrays.copyOf(Files.readAllBytes(png), 4);
            assertEquals("PNG", new String(head, 1, 3, StandardCharsets.US_ASCII));
            String prefix = LabNetwork.PREFIX + ProcessHandle.current().pid() + "-";
            String left = new String(new ProcessBuilder("ip", "netns", "list").redirectErrorStream(true).start().getInputStream()
                    .readAllBytes(), StandardCharsets.UTF_8);
            assertFalse(left.contains(prefix), "namespaces left behind:\n" + left);
        } finally {
            FileTrees.deleteQuietly(dir);
        }
    }

    private static List<String> fieldNames(JsonNode n) {
        List<String> names = new ArrayList<>();
        n.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
