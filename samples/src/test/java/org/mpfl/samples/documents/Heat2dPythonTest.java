package org.mpfl.samples.documents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.protocol.settings.ProtocolSettings;
import org.mpfl.testing.Http;
import org.mpfl.testing.StartsProcesses;

/**
 * samples/heat2d-py — heat2d with the Jacobi sweep in NumPy — on two service-host processes gives
 * exactly the iterations and the residual of heat2d's Java kernel on the same parameters: the Python
 * kernel computes in the Java kernel's order, so the floating-point results are the same bits.
 */
@Timeout(300)
@StartsProcesses
class Heat2dPythonTest {
    /**
     * Not square, and blocks of unequal size (11 rows over 2 ranks), so that a mixed-up index shows; 131 iterations
     * (21 × 14 took 232, each one a Python call per rank, for the same checks).
     */
    private static final String[] PARAMS = {"rows=11", "columns=10", "ranks=4", "tolerance=0.01", "checkpointEvery=7"};
    private static String previous;

    @BeforeAll
    static void start(@TempDir Path data) throws Exception {
        // the launcher passes this JVM's interpreter on to the host processes (mpflc up --python)
        previous = System.setProperty(ProtocolSettings.KERNEL_PYTHON.name(), System.getProperty("mpfl.test.python", "/usr/bin/python3"));
        SamplesRunTest.startCluster(data);
    }

    @AfterAll
    static void stop() {
        SamplesRunTest.stopCluster();
        if (previous == null) {
            System.clearProperty(ProtocolSettings.KERNEL_PYTHON.name());
        } else {
            System.setProperty(ProtocolSettings.KERNEL_PYTHON.name(), previous);
        }
    }

    @Test
    void theNumPySweepGivesTheJavaKernelsIterationsAndResidualToTheBit() throws Exception {
        JsonNode javaRun = SamplesRunTest.runSummary("heat2d", PARAMS);
        JsonNode pythonRun = SamplesRunTest.runSummary("heat2d-py", PARAMS);
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
        Http.Answer trace = Http.get(SamplesRunTest.engineUrl() + "/api/runs/" + id + "/trace");
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
