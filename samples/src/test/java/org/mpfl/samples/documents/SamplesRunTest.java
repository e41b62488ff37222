package org.mpfl.samples.documents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.mpfl.compiler.MpflCompiler;
import org.mpfl.protocol.settings.ProtocolSettings;
import org.mpfl.testing.Http;
import org.mpfl.ir.diag.Diagnostics;
import org.mpfl.ir.plan.ParamValues;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.local.LocalCluster;
import org.mpfl.fixtures.InlineExpectations;
import org.mpfl.testing.StartsProcesses;

/**
 * Each sample end to end at a small size: {@code mpflc run DOC --engine URL --json --param …} on one
 * local cluster (an engine and two service-host processes on loopback, what {@code --local --hosts 2} starts for
 * a single run), started once for all samples because starting it dominates a small run.
 *
 * <p>Each sample runs once, with the params its document gives ({@code <!-- param: NAME=VALUE -->}), and
 * its outputs are compared with the values the document states ({@code <!-- run: NAME = JSON -->},
 * docs/fixtures.md). What is a property rather than a value (a time {@code > 0}, a temperature close to
 * the analytic one) is checked below, on the same run. heat2d-py is also compared with heat2d to the bit on a
 * larger plate, on the same cluster.
 */
@StartsProcesses
class SamplesRunTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /**
     * The params of the samples whose documents state no output value (timings only): they are here,
     * not in the documents, because they only make the run short — a document's params are the ones its
     * stated values hold for.
     */
    private static final Map<String, List<String>> TEST_PARAMS = Map.of(
            "pingpong", List.of("n=10", "iterations=3", "warmup=1"),
            "pingstarpong", List.of("n=10", "burst=3", "iterations=2", "warmup=1"));
    /** The samples whose results are fixed values: their documents must keep stating them. */
    private static final List<String> STATE_THEIR_RESULTS = List.of("ring", "matmul", "heat2d", "heat2d-py", "moldyn");
    /**
     * heat2d-py against heat2d: not square, and blocks of unequal size (11 rows over 2 ranks), so that a mixed-up
     * index shows; 131 iterations (21 × 14 took 232, each one a Python call per rank, for the same checks).
     */
    private static final String[] HEAT2D_PY_PARAMS = {"rows=11", "columns=10", "ranks=4", "tolerance=0.01", "checkpointEvery=7"};
    private static final Map<String, JsonNode> RUNS = new ConcurrentHashMap<>();
    private static LocalCluster cluster;
    private static String previousPython;

    @BeforeAll
    static void startCluster(@TempDir Path data) throws Exception {
        // check and run exist now: their absence is a broken build, not a reason to skip
        assertTrue(SampleDocuments.hasCommand("check") && SampleDocuments.hasCommand("run"),
                "mpflc has no check/run command in this build");
        // the launcher passes this JVM's interpreter on to the host processes (mpflc up --python): heat2d-py's runs
        previousPython = System.setProperty(ProtocolSettings.KERNEL_PYTHON.name(), System.getProperty("mpfl.test.python", "/usr/bin/python3"));
        cluster = LocalCluster.start(new EngineConfig().port(0).dataDir(Files.createDirectories(data.resolve("engine"))),
                2, Duration.ofSeconds(120));
    }

    @AfterAll
    static void stopCluster() {
        try {
            if (cluster != null) {
                cluster.close();
            }
        } finally {
            if (previousPython == null) {
                System.clearProperty(ProtocolSettings.KERNEL_PYTHON.name());
            } else {
                System.setProperty(ProtocolSettings.KERNEL_PYTHON.name(), previousPython);
            }
        }
    }

    /** Runs a sample and returns its outputs ({name: {rank: value}}), failing unless it SUCCEEDED. */
    static JsonNode run(String sample, String... params) throws Exception {
        return runSummary(sample, params).path("outputs");
    }

    /** The engine the cluster of this class runs on. */
    private static String engineUrl() {
        return cluster.engine().url();
    }

    /** Runs a sample and returns {@code mpflc run --json}'s summary (run id, state, outputs), failing unless it SUCCEEDED. */
    static JsonNode runSummary(String sample, String... params) throws Exception {
        return runSummary(sample, List.of("--engine", cluster.engine().url(), "--data",
                cluster.engine().config().dataDir().toString()), params);
    }

    /** Like {@link #runSummary(String, String...)}, run where {@code where} says ({@code --engine URL}, {@code --local}). */
    static JsonNode runSummary(String sample, List<String> where, String... params) throws Exception {
        List<String> args = new ArrayList<>(List.of("run", SampleDocuments.document(sample).toString(), "--json", "--timeout", "300"));
        args.addAll(where);
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
        return summary;
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

    static InlineExpectations expectations(String sample) throws IOException {
        return new InlineExpectations(Files.readString(SampleDocuments.document(sample), StandardCharsets.UTF_8));
    }

    /** The params a sample runs with: its document's, or for a sample that states no value, {@link #TEST_PARAMS}. */
    static List<String> params(String sample) throws IOException {
        InlineExpectations expectations = expectations(sample);
        List<String> params = TEST_PARAMS.get(sample);
        if (params == null) {
            return expectations.params().entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList();
        }
        assertTrue(expectations.params().isEmpty() && !expectations.hasRunExpectations(),
                sample + ": params in the test and in the document");
        return params;
    }

    /** The outputs of the sample's one run in this test (with {@link #params}). */
    static JsonNode outputs(String sample) throws Exception {
        JsonNode outputs = RUNS.get(sample);
        if (outputs == null) {
            outputs = run(sample, params(sample).toArray(String[]::new));
            RUNS.put(sample, outputs);
        }
        return outputs;
    }

    /** How many ranks a run of the sample with these params has (what {@code @*} covers). */
    static int ranks(String sample, List<String> params) {
        Map<String, String> values = new java.util.LinkedHashMap<>();
        params.forEach(p -> values.put(p.substring(0, p.indexOf('=')), p.substring(p.indexOf('=') + 1)));
        MpflCompiler.CheckResult checked = new MpflCompiler().check(SampleDocuments.document(sample), sample + ".mpfl.xml", values);
        assertTrue(checked.ok(), sample + ": " + checked.diagnostics().sorted());
        return ParamValues.rankCounts(checked.workflow(), checked.paramValues(), new Diagnostics()).values().stream()
                .mapToInt(Integer::intValue).sum();
    }

    static Stream<String> samples() throws IOException {
        return SampleDocuments.all().stream().map(doc -> doc.getParent().getFileName().toString());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("samples")
    void runsAndOutputsWhatItsDocumentStates(String sample) throws Exception {
        String mismatch = expectations(sample).runMismatch(outputs(sample), ranks(sample, params(sample)));
        if (mismatch != null) {
            fail(sample + "/" + sample + ".mpfl.xml with " + params(sample) + ":\n" + mismatch);
        }
    }

    @Test
    void theSamplesWithFixedResultsStateThem() throws Exception {
        for (String sample : STATE_THEIR_RESULTS) {
            assertTrue(expectations(sample).hasRunExpectations(), sample + " no longer states its results");
        }
        assertEquals(List.of("coupling", "heat2d-py", "heat2d", "matmul", "moldyn", "pingpong", "pingstarpong", "ring"), samples().toList(),
                "a new sample: does it state its results (<!-- run: -->) or does this test check a property of them?");
    }

    /**
     * {@code run --local}, the ranks as threads of the command line's JVM (here the test's) messaging in memory,
     * gives the outputs the two host processes gave: every output but timings (names ending in {@code _s},
     * {@code _ms}, {@code _us}), numbers to a relative 1e-9 (the collectives may group ranks by host, which
     * changes the order of floating-point sums, not their values beyond rounding).
     */
    @ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"ring", "matmul", "heat2d", "coupling", "moldyn"})
    void theRanksInTheCommandLinesJvmGiveTheOutputsOfTheHostProcesses(String sample) throws Exception {
        JsonNode hosts = outputs(sample);
        JsonNode local = runSummary(sample, List.of("--local"), params(sample).toArray(String[]::new)).path("outputs");
        List<String> compared = new ArrayList<>();
        hosts.fieldNames().forEachRemaining(name -> {
            if (!name.matches(".*_(s|ms|us)")) {
                compared.add(name);
            }
        });
        assertTrue(!compared.isEmpty(), sample + ": no output to compare in " + hosts);
        for (String name : compared) {
            JsonNode h = hosts.get(name);
            JsonNode l = local.path(name);
            assertEquals(iterableNames(h), iterableNames(l), sample + ": the ranks with output " + name);
            h.fieldNames().forEachRemaining(rank -> {
                JsonNode a = h.get(rank);
                JsonNode b = l.get(rank);
                if (a.isNumber() && b.isNumber()) {
                    assertEquals(a.asDouble(), b.asDouble(), 1e-9 * Math.max(1, Math.abs(a.asDouble())),
                            sample + ": " + name + " of rank " + rank);
                } else {
                    assertEquals(a, b, sample + ": " + name + " of rank " + rank);
                }
            });
        }
    }

    private static List<String> iterableNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }

    // properties rather than values, on the same runs

    @Test
    void pingpong() throws Exception {
        assertTrue(output(outputs("pingpong"), "median_rtt_us", 0) > 0);
    }

    @Test
    void pingstarpong() throws Exception {
        assertTrue(output(outputs("pingstarpong"), "per_msg_us", 0) > 0);
    }

    @Test
    void heat2d() throws Exception {
        assertTrue(output(outputs("heat2d"), "iterations", 0) > 1);
    }

    @Test
    void coupling() throws Exception {
        JsonNode outputs = outputs("coupling");
        double analytic = output(outputs, "analyticInterfaceTemperature", 0);
        assertEquals(analytic, output(outputs, "interfaceTemperature", 0), 1e-3);
        assertEquals(analytic, output(outputs, "interfaceTemperature", 1), 1e-3);
    }

    @Test
    void moldyn() throws Exception {
        JsonNode outputs = outputs("moldyn");
        assertTrue(output(outputs, "total_s", 0) >= output(outputs, "comm_s", 0));
    }

    /**
     * samples/heat2d-py — heat2d with the Jacobi sweep in NumPy — on the two service-host processes gives exactly
     * the iterations and the residual of heat2d's Java kernel on the same parameters: the Python kernel computes in
     * the Java kernel's order, so the floating-point results are the same bits. On this class's cluster (until
     * issue 25 a class of its own, Heat2dPythonTest, which started a second engine and two more hosts for it).
     */
    @Test
    void theNumPySweepGivesTheJavaKernelsIterationsAndResidualToTheBit() throws Exception {
        JsonNode javaRun = runSummary("heat2d", HEAT2D_PY_PARAMS);
        JsonNode pythonRun = runSummary("heat2d-py", HEAT2D_PY_PARAMS);
        JsonNode java = javaRun.path("outputs");
        JsonNode python = pythonRun.path("outputs");
        assertTrue(java.at("/converged/0").asBoolean(), java.toString());
        assertTrue(java.at("/iterations/0").asInt() > 50, "a run long enough for rounding to show: " + java);
        assertEquals(java, python, "the same iterations and residual, to the bit");

        // the console's timeline draws the run's trace: a Python kernel's calls are compute spans there
        // as the Java kernel's are — one per call and rank, named by the kernel, located at its <compute>
        int iterations = java.at("/iterations/0").asInt();
        Map<Integer, Integer> javaSweeps = computeSpans(javaRun, "Jacobi", null);
        Map<Integer, Integer> pythonSweeps = computeSpans(pythonRun, "compute python jacobi:sweep", "heat2d-py.mpfl.xml:63:");
        assertEquals(4, pythonSweeps.size(), "every rank's sweeps are spans: " + pythonSweeps);
        for (int rank = 0; rank < 4; rank++) {
            assertEquals(iterations, pythonSweeps.get(rank), "one span per sweep of rank " + rank);
        }
        assertEquals(javaSweeps, pythonSweeps, "as many compute spans per rank as the Java kernel's run has");
    }

    /**
     * Per rank (trace pid - 1), the number of compute spans whose name contains {@code name}, each checked
     * to be located at {@code location} when one is given.
     */
    private static Map<Integer, Integer> computeSpans(JsonNode run, String name, String location) throws Exception {
        String id = run.path("run").asText();
        Http.Answer trace = Http.get(engineUrl() + "/api/runs/" + id + "/trace");
        assertEquals(200, trace.status(), trace.body());
        Map<Integer, Integer> spans = new TreeMap<>();
        for (JsonNode e : trace.json().path("traceEvents")) {
            if (e.path("ph").asText().equals("X") && e.path("cat").asText().equals("compute")
                    && e.path("name").asText().contains(name)) {
                if (location != null) {
                    assertTrue(e.path("args").path("location").asText().contains(location), e.toString());
                }
                spans.merge(e.path("pid").asInt() - 1, 1, Integer::sum);
            }
        }
        return spans;
    }
}
