package org.mpfl.samples.documents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.protocol.settings.ProtocolSettings;
import org.mpfl.testing.StartsProcesses;

/**
 * samples/heat2d-py — heat2d with the Jacobi sweep in NumPy — on two service-host processes gives
 * exactly the iterations and the residual of heat2d's Java kernel on the same parameters: the Python
 * kernel computes in the Java kernel's order, so the floating-point results are the same bits.
 */
@Timeout(300)
@StartsProcesses
class Heat2dPythonTest {
    /** Not square, and blocks of unequal size (21 rows over 2 ranks), so that a mixed-up index shows. */
    private static final String[] PARAMS = {"rows=21", "columns=14", "ranks=4", "tolerance=0.01", "checkpointEvery=7"};
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
        JsonNode java = SamplesRunTest.run("heat2d", PARAMS);
        JsonNode python = SamplesRunTest.run("heat2d-py", PARAMS);
        assertTrue(java.at("/converged/0").asBoolean(), java.toString());
        assertTrue(java.at("/iterations/0").asInt() > 50, "a run long enough for rounding to show: " + java);
        assertEquals(java, python, "the same iterations and residual, to the bit");
    }
}
