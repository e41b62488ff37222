package org.mpfl.runtime.interp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.testing.StartsProcesses;

/**
 * {@code <compute python>} with a real interpreter (Debian's python3 with python3-numpy, as .ci/run
 * installs): every type both ways, in-place updates, module state between calls, fresh output arrays,
 * and the kernel's prints as the rank's log lines.
 */
@StartsProcesses
class PythonKernelTest {
    static final String PYTHON = KernelTestPython.PATH;
    private static final Duration LIMIT = Duration.ofSeconds(60);
    private static String previous;

    @BeforeAll
    static void usePython() {
        previous = KernelTestPython.use(KernelTestPython.PATH);
    }

    @AfterAll
    static void restore() {
        KernelTestPython.restore(previous);
    }

    @Test
    void everyTypeTravelsBothWaysAndModuleStatePersists() {
        InterpreterHarness.Result r = InterpreterHarness.run("pykernel.mpfl.xml", Map.of(), LIMIT).succeeded();
        for (int rank = 0; rank < 2; rank++) {
            double[] expected = new double[4];
            double total = 0;
            for (int i = 0; i < 4; i++) {
                expected[i] = 4.0 * (i + rank); // doubled in place by each of the two calls
                total += expected[i];
            }
            assertArrayEquals(expected, (double[]) r.output("a", rank), "in-place update seen by the rank " + rank);
            assertEquals(total, r.output("total", rank));
            assertEquals(42L, r.output("count", rank));
            assertEquals("RANK" + rank + "!", r.output("tag", rank));
            assertEquals(rank != 0, r.output("ok", rank));
            assertEquals(2, r.output("calls", rank), "module state lives as long as the rank");
            assertEquals(Map.of("calls", 2), withoutNulls(r.output("info", rank)));
            int[] ints = (int[]) r.output("ints", rank);
            long[] longs = (long[]) r.output("longs", rank);
            double[] doubles = (double[]) r.output("doubles", rank);
            assertEquals(41, ints.length); // n = 41 elements
            assertEquals(40, ints[40]);
            assertEquals(40L << 40, longs[40]);
            assertEquals(1.0, doubles[40]);
            assertEquals(1.0 / 40, doubles[1], 1e-15);
            assertArrayEquals(new double[] {0.0, 0.25, 0.5, 0.75, 1.0}, (double[]) r.output("first", rank),
                    "a site's earlier new array is its own, untouched by later calls of different and equal lengths");
            assertEquals("numpy", r.output("backend", rank));
            List<String> logs = r.rank(rank).logs;
            assertTrue(logs.contains("info: scale call 2 on rank" + rank), "the kernel's print is a log line: " + logs);
            assertTrue(r.rank(rank).events.contains("ACTIVITY compute python kernels:scale @ pykernel.mpfl.xml:29:5"),
                    "a kernel call is an activity of the rank, as a Java one: " + r.rank(rank).events);
        }
    }

    /**
     * With NumPy hidden (the interpreter is a wrapper that puts a {@code numpy} package raising
     * ImportError first on the path, as a user's environment without NumPy would be), arrays are
     * {@code array.array} and the same document gives the same results.
     */
    @Test
    void withoutNumPyArraysAreArrayArrays(@TempDir Path dir) throws Exception {
        Path hidden = Files.createDirectories(dir.resolve("hide/numpy"));
        Files.writeString(hidden.resolve("__init__.py"), "raise ImportError('NumPy is hidden by PythonKernelTest')\n");
        Path wrapper = dir.resolve("python-without-numpy");
        Files.writeString(wrapper, "#!/bin/sh\nPYTHONPATH=" + dir.resolve("hide") + " exec " + PYTHON + " \"$@\"\n");
        assertTrue(wrapper.toFile().setExecutable(true, true));
        String numpy = KernelTestPython.use(wrapper.toString());
        try {
            InterpreterHarness.Result r = InterpreterHarness.run("pykernel.mpfl.xml", Map.of(), LIMIT).succeeded();
            for (int rank = 0; rank < 2; rank++) {
                assertEquals("array", r.output("backend", rank), "the kernel saw no NumPy");
                assertArrayEquals(new double[] {4.0 * rank, 4.0 * (1 + rank), 4.0 * (2 + rank), 4.0 * (3 + rank)},
                        (double[]) r.output("a", rank), "array.array updated in place is written back");
                assertEquals(2, r.output("calls", rank));
                assertEquals(40L << 40, ((long[]) r.output("longs", rank))[40]);
                assertEquals(1.0, ((double[]) r.output("doubles", rank))[40]);
            }
        } finally {
            KernelTestPython.restore(numpy);
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> withoutNulls(Object info) {
        Map<String, Object> m = new java.util.LinkedHashMap<>((Map<String, Object>) info);
        m.values().removeIf(java.util.Objects::isNull);
        return m;
    }
}
