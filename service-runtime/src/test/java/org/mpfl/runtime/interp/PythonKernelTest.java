package org.mpfl.runtime.interp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.mpfl.protocol.RunRequest;
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
        String numpy = KernelTestPython.use(pythonWithoutNumPy(dir));
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

    /**
     * The worker imports NumPy at the first array value, not at its start: the import is most of a worker's start-up
     * (about 80 of 150 ms of CPU measured here), which kernels passing no arrays never needed. Scalars come and go
     * without it; an array input is still a NumPy view. Before, NumPy was always imported as the worker started.
     */
    @Test
    void numPyIsImportedAtTheFirstArrayNotAtTheWorkersStart(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("probe.py"), """
                import array
                import sys

                def scalars(x):
                    return {"before": "numpy" in sys.modules}

                def make(x):
                    return {"a": array.array("d", [x, 2.0])}

                def arrays(a):
                    return {"after": "numpy" in sys.modules, "kind": type(a).__module__ + "." + type(a).__name__}
                """);
        Path document = Files.writeString(dir.resolve("probe.mpfl.xml"), """
                <workflow xmlns="urn:mpfl:1.0" name="lazynumpy">
                  <library path="probe.py"/>
                  <process name="p" ranks="1">
                    <var name="x" type="double" init="1.0"/>
                    <var name="before" type="boolean"/>
                    <var name="after" type="boolean"/>
                    <var name="kind" type="string"/>
                    <var name="a" type="double[]"/>
                    <compute python="probe:scalars" in="x" out="before"/>
                    <compute python="probe:make" in="x" out="a"/>
                    <compute python="probe:arrays" in="a" out="after, kind"/>
                    <output name="before" value="before"/>
                    <output name="a" value="a"/>
                    <output name="after" value="after"/>
                    <output name="kind" value="kind"/>
                  </process>
                </workflow>
                """);
        InterpreterHarness.Result r = InterpreterHarness.run(document, Map.of(), LIMIT).succeeded();
        assertEquals(false, r.output("before", 0), "NumPy imported before any array");
        assertArrayEquals(new double[] {1.0, 2.0}, (double[]) r.output("a", 0), "an array.array output, without NumPy");
        assertEquals(true, r.output("after", 0));
        assertEquals("numpy.ndarray", r.output("kind", 0), "an array input is a NumPy view");
    }

    /**
     * The types pykernel.mpfl.xml does not send — {@code int}, {@code int[]}, {@code long[]}, and {@code bytes} and
     * {@code object} values with content — go to the kernel and come back, as NumPy arrays and as
     * {@code array.array}; a slice of an input array is a new output (copied at or after FREE, not refused as
     * lying inside the inputs); the kernel's stderr is a {@code warn} line of the rank's log; a returned key that is no
     * {@code out} name is ignored (docs/language-reference.md), even one holding a value no type could carry.
     */
    @ParameterizedTest(name = "numpy={0}")
    @ValueSource(booleans = {true, false})
    void theOtherTypesTravelBothWaysAndASliceOfAnInputIsANewOutput(boolean numpy, @TempDir Path dir) throws Exception {
        String previousPython = KernelTestPython.use(numpy ? PYTHON : pythonWithoutNumPy(dir));
        try {
            InterpreterHarness.Result r = InterpreterHarness.run("pykernel-types.mpfl.xml", Map.of(), LIMIT).succeeded();
            assertEquals(42, r.output("i2", 0));
            assertArrayEquals(new int[] {4, 3, 2, 1, 0}, (int[]) r.output("ia2", 0));
            assertArrayEquals(new long[] {5_000_000_000L, 1L}, (long[]) r.output("la2", 0));
            assertArrayEquals(new byte[] {(byte) 255, (byte) 254, 1, 0, '!'}, (byte[]) r.output("blob2", 0));
            Map<String, Object> sent = Map.of("list", Arrays.asList(1, 2.5, "s", null, true), "nested", Map.of("k", "v"));
            assertEquals(Map.of("got", sent, "types", List.of("int", "bytes", "dict")), r.output("meta2", 0));
            assertArrayEquals(new double[] {0.0, 7.5, 0.0, 0.0}, (double[]) r.output("x", 0), "the in-place update");
            assertArrayEquals(new double[] {7.5, 0.0}, (double[]) r.output("part", 0), "the slice x[1:3], after the update");
            assertTrue(r.rank(0).logs.contains("warn: roundtrip saw bytes"), "stderr is a warn line: " + r.rank(0).logs);
        } finally {
            KernelTestPython.restore(previousPython);
        }
    }

    /**
     * NaN and infinities inside {@code object} values are kept, in Java as in Python (docs/language-reference.md,
     * types): a Java activity's reach a kernel as {@code float}s, a kernel's come back as {@code Double}s, both are
     * gathered (a message) and saved in a checkpoint that a resumed run restores.
     */
    @Test
    void nanAndInfinitiesInsideObjectsAreKeptFromJavaAndPythonAlike() {
        String doc = "pykernel-nonfinite.mpfl.xml";
        InterpreterHarness.Result full = InterpreterHarness.run(doc, Map.of(), LIMIT).succeeded();
        InterpreterHarness.Result resumed = InterpreterHarness.run(doc, Map.of(), LIMIT,
                r -> new RunRequest.Resume(1, full.rank(r).checkpoints.get(1L))).succeeded();
        Map<String, Object> fromPython = Map.of("nan", Double.NaN, "inf", Double.POSITIVE_INFINITY,
                "list", List.of(1.0, Double.NEGATIVE_INFINITY));
        for (InterpreterHarness.Result r : List.of(full, resumed)) {
            for (int rank = 0; rank < 2; rank++) {
                assertEquals(fromPython, r.output("p", rank));
                assertEquals("float nan float inf float -inf float nan", r.output("seen", rank));
                Map<?, ?> fromJava = (Map<?, ?>) r.output("j", rank);
                assertEquals(Double.NaN, fromJava.get("nan"));
                assertEquals(List.of(1.0, Double.NEGATIVE_INFINITY), fromJava.get("list"));
                assertArrayEquals(new double[] {Double.NaN, 2.0}, (double[]) fromJava.get("array"));
            }
            assertEquals(List.of(fromPython, fromPython), r.output("gathered", 0));
        }
    }

    /**
     * Python sources travel as a package directory ({@code <library path="lib/mypkg"/>}, imported as {@code mypkg}
     * and {@code mypkg.inner}) and as a {@code .zip} (imported from the zip by Python's own zipimport), as well as
     * the {@code .py} files of the other tests.
     */
    @Test
    void aPackageDirectoryAndAZipAreLibraries(@TempDir Path dir) throws Exception {
        Path pkg = Files.createDirectories(dir.resolve("lib/mypkg"));
        Files.writeString(pkg.resolve("__init__.py"), "from .inner import plus_one\n");
        Files.writeString(pkg.resolve("inner.py"), "def plus_one(x):\n    return {\"y\": x + 1.0}\n");
        try (ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(dir.resolve("zipped.zip")))) {
            zip.putNextEntry(new ZipEntry("zmod/__init__.py"));
            zip.write("def times_ten(x):\n    return {\"y\": x * 10.0}\n".getBytes(StandardCharsets.UTF_8));
            zip.closeEntry();
        }
        Path document = dir.resolve("libraries.mpfl.xml");
        Files.writeString(document, """
                <workflow xmlns="urn:mpfl:1.0" name="libraries">
                  <library path="lib/mypkg"/>
                  <library path="zipped.zip"/>
                  <process name="node" ranks="1">
                    <var name="x" type="double" init="1.0"/>
                    <var name="y" type="double"/>
                    <compute python="mypkg:plus_one" in="x" out="y"/>
                    <assign to="x" value="y"/>
                    <compute python="mypkg.inner:plus_one" in="x" out="y"/>
                    <assign to="x" value="y"/>
                    <compute python="zmod:times_ten" in="x" out="y"/>
                    <output name="y" value="y"/>
                  </process>
                </workflow>
                """);
        InterpreterHarness.Result r = InterpreterHarness.run(document, Map.of(), LIMIT).succeeded();
        assertEquals(30.0, r.output("y", 0), "(1 + 1 + 1) * 10: both modules of the package and the zip's");
    }

    /**
     * A traceback names a zipped module's file relative to the libraries, as it does a {@code .py} file's
     * (docs/kernel-protocol.md, "Errors"): {@code zipped.zip/zmod/__init__.py}. Before, the zip's frames kept the
     * libraries' directory ({@code /tmp/mpfl-kernels-…/zipped.zip/…} on a host): only directories were taken off.
     */
    @Test
    void aZippedKernelsTracebackNamesItsFileRelativeToTheLibraries(@TempDir Path dir) throws Exception {
        try (ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(dir.resolve("zipped.zip")))) {
            zip.putNextEntry(new ZipEntry("zmod/__init__.py"));
            zip.write("def fails(x):\n    raise ValueError('from the zip')\n".getBytes(StandardCharsets.UTF_8));
            zip.closeEntry();
        }
        Path document = dir.resolve("zipfails.mpfl.xml");
        Files.writeString(document, """
                <workflow xmlns="urn:mpfl:1.0" name="zipfails">
                  <library path="zipped.zip"/>
                  <process name="node" ranks="1">
                    <var name="x" type="double" init="1.0"/>
                    <compute python="zmod:fails" in="x" out="x"/>
                  </process>
                </workflow>
                """);
        String message = InterpreterHarness.run(document, Map.of(), LIMIT).singleFault().getMessage();
        assertTrue(message.contains("File \"zipped.zip/zmod/__init__.py\", line 2, in fails"), message);
        assertTrue(message.contains("ValueError: from the zip"), message);
        assertFalse(message.contains(dir.toString()), "no directory of the host: " + message);
    }

    /**
     * A kernel that forks ({@code os.fork()}) without ending the child in it: the child returns from the kernel into
     * the worker, which shares the parent's control channel. It ends there, saying so on stderr, and the parent alone
     * answers. Before, the child answered too and went on reading requests: the next call got the fork's answer
     * ("did not return output 'e' (it returned [d2])").
     */
    @Test
    void aChildForkedByAKernelNeverAnswersForTheWorker(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("forks.py"), """
                import os
                def fork(x):
                    child = os.fork() == 0
                    if child:
                        raise RuntimeError("the child's own failure is not the call's")
                    return {"d": 1.0}
                def fork_and_return(x):
                    return {"d2": 2.0 if os.fork() else -2.0}
                def plain(x):
                    return {"e": x + 3.0}
                """);
        Path document = dir.resolve("forks.mpfl.xml");
        Files.writeString(document, """
                <workflow xmlns="urn:mpfl:1.0" name="forks">
                  <library path="forks.py"/>
                  <process name="node" ranks="1">
                    <var name="x" type="double" init="0.0"/>
                    <var name="d" type="double"/>
                    <var name="d2" type="double"/>
                    <var name="e" type="double"/>
                    <compute python="forks:fork" in="x" out="d"/>
                    <compute python="forks:fork_and_return" in="x" out="d2"/>
                    <compute python="forks:plain" in="x" out="e"/>
                    <output name="d" value="d"/>
                    <output name="d2" value="d2"/>
                    <output name="e" value="e"/>
                  </process>
                </workflow>
                """);
        InterpreterHarness.Result r = InterpreterHarness.run(document, Map.of(), LIMIT).succeeded();
        assertEquals(1.0, r.output("d", 0));
        assertEquals(2.0, r.output("d2", 0), "the parent's answer, not the child's");
        assertEquals(3.0, r.output("e", 0), "the next call gets its own answer");
    }

    /**
     * A call wakes the worker once (for the request) and the rank's thread once (for the answer), read
     * off the kernel's own count of voluntary context switches ({@code /proc}): both sides wait in
     * {@code poll}/{@code epoll}, because a {@code read} blocked on a Unix stream socket is also woken,
     * for nothing, whenever the peer consumes what it sent — with a blocking {@code recv} the worker slept
     * 705–722 times over these 401 calls (2026-12-02), each extra wake-up waiting for a core on a busy host
     * (docs/kernel-protocol.md, "Waiting"). The counts are of sleeps, not of time: the bound holds under load.
     * The process mixes Java and Python activities, as a user may (its class sites start no worker).
     */
    @Test
    void aCallWakesTheWorkerOnceAndTheRankOnce() {
        int calls = 400;
        InterpreterHarness.Result r = InterpreterHarness.run("pykernel-wakeups.mpfl.xml",
                Map.of("calls", Integer.toString(calls)), LIMIT).succeeded();
        long worker = (Long) r.output("worker", 0);
        long thread = (Long) r.output("thread", 0);
        // between its two readings the worker waits for calls + 1 requests, the rank's thread for calls + 2 answers
        // (at most once each: a frame already there when a side gets to wait costs no sleep, as a side preempted on
        // a loaded machine often finds; a run beside other builds saw the worker find every request there: 0 sleeps
        // over 401 calls) — so no lower bound: the counts are real readings (kernels.switches raises when
        // /proc/self/status has no count), and even the worker's sleep before its first call is not certain (a CI run
        // beside other builds saw 0: the request was there when the worker got to read it).
        // ControlChannelWakeupTest pins the rank's side down exactly.
        assertTrue(worker <= (calls + 1) * 11L / 10,
                "the worker slept " + worker + " times over " + (calls + 1) + " calls (once each, 10 % slack)");
        assertTrue(thread > 0 && thread <= (calls + 2) * 11L / 10 + 10,
                "the rank's thread slept " + thread + " times over " + (calls + 2) + " calls (once each, 10 % slack)");
    }

    /**
     * A kernel that hands its input back as other outputs (one updated in place): each variable has an array of its
     * own afterwards, as after {@code <assign>}; before, all three shared the input's, and an assignment to {@code b[0]}
     * changed {@code a} and {@code c} too. aliases.mpfl.xml's run expectations are the same case with a Java activity.
     */
    @Test
    void outputsThatAreTheInputsOwnArrayAreStoredAsArraysOfTheirOwn() {
        InterpreterHarness.Result r = InterpreterHarness.run("aliases.mpfl.xml", Map.of("kernel", "'python'"), LIMIT).succeeded();
        assertArrayEquals(new double[] {10.0, 2.0, 7.0}, (double[]) r.output("a", 0));
        assertArrayEquals(new double[] {20.0, 2.0, 7.0}, (double[]) r.output("b", 0));
        assertArrayEquals(new double[] {1.0, 30.0, 7.0}, (double[]) r.output("c", 0));
    }

    /**
     * The branches of a {@code <parallel>} run at once inside the rank and share its one worker: their calls
     * take turns, each with its own arrays in the shared memory from the request to the answer (two calls'
     * inputs at the same offsets would overwrite each other).
     */
    @Test
    void parallelBranchesCallingKernelsAtOnceTakeTurns() {
        int rounds = 60;
        InterpreterHarness.Result r = InterpreterHarness.run("pykernel-parallel.mpfl.xml",
                Map.of("rounds", Integer.toString(rounds)), LIMIT).succeeded();
        double[] a = (double[]) r.output("a", 0);
        double[] b = (double[]) r.output("b", 0);
        assertEquals(500, a.length);
        assertEquals(700, b.length);
        for (int i = 0; i < a.length; i++) {
            assertEquals(rounds * 1.0, a[i], "a[" + i + "] after " + rounds + " rounds of + 1");
        }
        for (int i = 0; i < b.length; i++) {
            assertEquals(rounds * 2.0, b[i], "b[" + i + "] after " + rounds + " rounds of + 2");
        }
        assertEquals(500 * rounds * 1.0, r.output("sa", 0));
        assertEquals(700 * rounds * 2.0, r.output("sb", 0));
    }

    /**
     * A python3 that cannot import NumPy (a {@code numpy} package raising ImportError first on its path, as a user's
     * environment without NumPy would be): a wrapper script in {@code dir}.
     */
    /**
     * Without NumPy an input is an {@code array.array}, which a kernel can lengthen or shorten ({@code append},
     * {@code extend}, {@code del a[1:]}); a rank's array cannot change its length. Such an input is not written back
     * (its variable keeps its value), and returned it is a new value of its new length. Before, the worker answered
     * the input's region with the new count (the rank refused it as "inside the inputs' regions", blaming the
     * worker), and an array grown beyond the shared memory crashed the worker writing it back (IndexError).
     */
    @Test
    void aResizedArrayArrayInputIsANewValueAndNotWrittenBack(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("resize.py"), """
                def grow(x, ia):
                    x[0] = 9.0
                    x.extend([7.0] * 200000)  # 1.6 MB: beyond the shared memory's first size
                    del ia[1:]
                    return {"big": x, "short": ia, "n": len(x)}
                """);
        Path document = dir.resolve("resize.mpfl.xml");
        Files.writeString(document, """
                <workflow xmlns="urn:mpfl:1.0" name="resize">
                  <library path="resize.py"/>
                  <process name="node" ranks="1">
                    <var name="x" type="double[]" init="fill(3, 1.5)"/>
                    <var name="ia" type="int[]" init="[1, 2, 3]"/>
                    <var name="big" type="double[]"/>
                    <var name="short" type="int[]"/>
                    <var name="n" type="int"/>
                    <compute python="resize:grow" in="x, ia" out="big, short, n"/>
                    <output name="x" value="x"/>
                    <output name="ia" value="ia"/>
                    <output name="big" value="big"/>
                    <output name="short" value="short"/>
                    <output name="n" value="n"/>
                  </process>
                </workflow>
                """);
        String previousPython = KernelTestPython.use(pythonWithoutNumPy(dir));
        try {
            InterpreterHarness.Result r = InterpreterHarness.run(document, Map.of(), LIMIT).succeeded();
            assertEquals(200003, r.output("n", 0));
            double[] big = (double[]) r.output("big", 0);
            assertEquals(200003, big.length);
            assertEquals(9.0, big[0]);
            assertEquals(7.0, big[200002]);
            assertArrayEquals(new int[] {1}, (int[]) r.output("short", 0));
            assertArrayEquals(new double[] {1.5, 1.5, 1.5}, (double[]) r.output("x", 0), "a resized input is not written back");
            assertArrayEquals(new int[] {1, 2, 3}, (int[]) r.output("ia", 0), "a resized input is not written back");
        } finally {
            KernelTestPython.restore(previousPython);
        }
    }

    private static String pythonWithoutNumPy(Path dir) throws IOException {
        Path hidden = Files.createDirectories(dir.resolve("hide/numpy"));
        Files.writeString(hidden.resolve("__init__.py"), "raise ImportError('NumPy is hidden by PythonKernelTest')\n");
        Path wrapper = dir.resolve("python-without-numpy");
        Files.writeString(wrapper, "#!/bin/sh\nPYTHONPATH=" + dir.resolve("hide") + " exec " + PYTHON + " \"$@\"\n");
        assertTrue(wrapper.toFile().setExecutable(true, true));
        return wrapper.toString();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> withoutNulls(Object info) {
        Map<String, Object> m = new java.util.LinkedHashMap<>((Map<String, Object>) info);
        m.values().removeIf(java.util.Objects::isNull);
        return m;
    }
}
