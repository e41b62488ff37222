package org.mpfl.samples.documents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.local.LocalCluster;

/**
 * Each sample end to end at a small size: {@code mpflc run DOC --engine URL --json --param …} on one
 * local cluster (an engine and two service-host processes on loopback, what {@code --local} starts for
 * a single run), started once for all samples because starting it dominates a small run.
 */
class SamplesRunTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static LocalCluster cluster;

    @BeforeAll
    static void startCluster(@TempDir Path data) throws Exception {
        // check and run exist now: their absence is a broken build, not a reason to skip
        assertTrue(SampleDocuments.hasCommand("check") && SampleDocuments.hasCommand("run"),
                "mpflc has no check/run command in this build");
        cluster = LocalCluster.start(new EngineConfig().port(0).dataDir(Files.createDirectories(data.resolve("engine"))),
                2, Duration.ofSeconds(120));
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** Runs a sample and returns its outputs ({name: {rank: value}}), failing unless it SUCCEEDED. */
    static JsonNode run(String sample, String... params) throws Exception {
        List<String> args = new ArrayList<>(List.of("run", SampleDocuments.document(sample).toString(), "--json",
                "--engine", cluster.engine().url(), "--data", cluster.engine().config().dataDir().toString(), "--timeout", "300"));
        for (String param : params) {
            args.add("--param");
            args.add(param);
        }
        SampleDocuments.Result result = SampleDocuments.mpflc(args);
        JsonNode summary = lastJsonObject(result.out());
        String report = sample + ": exit " + result.exitCode() + "\nstdout:\n" + result.out() + "\nstderr:\n" + result.err();
        assertTrue(summary != null, report);
        assertEquals("SUCCEEDED", summary.path("state").asText(), report);
        assertEquals(0, result.exitCode(), report);
        return summary.path("outputs");
    }

    /** The JSON summary is the last thing on stdout; it may span several lines. */
    static JsonNode lastJsonObject(String stdout) {
        for (int start = stdout.lastIndexOf('{'); start >= 0; start = stdout.lastIndexOf('{', start - 1)) {
            if (start == 0 || stdout.charAt(start - 1) == '\n') {
                try {
                    JsonNode node = JSON.readTree(stdout.substring(start));
                    if (node != null && node.has("state")) {
                        return node;
                    }
                } catch (Exception notJsonFromHere) {
                    // keep looking further up
                }
            }
        }
        return null;
    }

    static double output(JsonNode outputs, String name, int rank) {
        JsonNode value = outputs.path(name).path(Integer.toString(rank));
        assertTrue(value.isNumber() || value.isTextual(), "no output " + name + " at rank " + rank + " in " + outputs);
        return value.asDouble();
    }

    @Test
    void ring() throws Exception {
        assertEquals(3.0, output(run("ring", "ranks=3"), "token", 0));
    }

    @Test
    void pingpong() throws Exception {
        JsonNode outputs = run("pingpong", "n=10", "iterations=3", "warmup=1");
        assertTrue(output(outputs, "median_rtt_us", 0) > 0);
    }

    @Test
    void pingstarpong() throws Exception {
        JsonNode outputs = run("pingstarpong", "n=10", "burst=3", "iterations=2", "warmup=1");
        assertTrue(output(outputs, "per_msg_us", 0) > 0);
    }

    @Test
    void matmul() throws Exception {
        assertEquals(0.0, output(run("matmul", "n=16", "ranks=2"), "maxError", 0));
    }

    @Test
    void heat2d() throws Exception {
        JsonNode outputs = run("heat2d", "rows=8", "columns=8", "ranks=4", "tolerance=0.1");
        assertTrue(outputs.path("converged").path("0").asBoolean(), outputs.toString());
        assertTrue(output(outputs, "iterations", 0) > 1);
    }

    @Test
    void coupling() throws Exception {
        JsonNode outputs = run("coupling");
        double analytic = output(outputs, "analyticInterfaceTemperature", 0);
        assertEquals(analytic, output(outputs, "interfaceTemperature", 0), 1e-3);
        assertEquals(analytic, output(outputs, "interfaceTemperature", 1), 1e-3);
    }

    @Test
    void moldyn() throws Exception {
        JsonNode outputs = run("moldyn", "mm=8", "ranks=2");
        assertEquals(1731.4306625334357, output(outputs, "ek", 0), 1e-12);
        assertTrue(output(outputs, "total_s", 0) >= output(outputs, "comm_s", 0));
    }
}
