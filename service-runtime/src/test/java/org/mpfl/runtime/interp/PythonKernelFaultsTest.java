package org.mpfl.runtime.interp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.mpfl.protocol.FaultKind;
import org.mpfl.runtime.interp.kernel.KernelFailure;
import org.mpfl.testing.Await;
import org.mpfl.testing.StartsProcesses;

/**
 * A misbehaving Python kernel fails its rank with a clear message — the Python traceback's file and
 * line and the document's location — and never hangs it; a worker killed from outside is reported
 * as lost (an infrastructure fault) within 2 s.
 */
@StartsProcesses
@Timeout(180)
class PythonKernelFaultsTest {
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

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "raise   | pykernel-faults.mpfl.xml:12:7 | kernels.py\", line 36, in helper;ZeroDivisionError: float division by zero;raised an exception",
        "type    | pykernel-faults.mpfl.xml:14:7 | output 'y': expected double, got str",
        "shape   | pykernel-faults.mpfl.xml:17:7 | output 'v': expected double[], got numpy.ndarray float64 shape (3, 4)"
                + " (return a 1-D array: ….ravel() flattens it)",
        "dtype   | pykernel-faults.mpfl.xml:61:7 | output 'v': expected double[], got numpy.ndarray float32 shape (3,)"
                + " (return ….astype(numpy.float64))",
        "missing | pykernel-faults.mpfl.xml:20:7 | output 'y' (double) was not returned (the dict has ['z'])",
        "exit    | pykernel-faults.mpfl.xml:23:7 | kernel kernels:leave called sys.exit(3) to end its worker;kernels.py\", line 53, in leave",
        "exit137 | pykernel-faults.mpfl.xml:40:7 | called sys.exit(137) to end its worker;in leave_as_if_killed",
        "list    | pykernel-faults.mpfl.xml:34:7 | output 'v': expected double[], got list (return numpy.array(…, dtype=numpy.float64))",
        "crash   | pykernel-faults.mpfl.xml:37:7 | was killed by signal 11 (SIGSEGV);about to crash",
        "huge      | pykernel-faults.mpfl.xml:46:7 | output 'y': expected double, got int (too large for a double)",
        "interrupt | pykernel-faults.mpfl.xml:49:7 | raised an exception;kernels.py\", line 97, in interrupt;KeyboardInterrupt: stopped by the kernel itself",
        "hugelong  | pykernel-faults.mpfl.xml:52:7 | output 'n': expected long, got an int of 1329 bits (out of range)",
        "longer    | pykernel-faults.mpfl.xml:58:7 | output 'n': expected long, got an int of 16610 bits (out of range)",
        "keys      | pykernel-faults.mpfl.xml:55:7 | output 'y' (double) was not returned (the dict has ['z', 1])",
    })
    void aMisbehavingKernelFailsItsRankSayingWhatAndWhere(String fault, String location, String messages) {
        InterpreterHarness.Result r = InterpreterHarness.run("pykernel-faults.mpfl.xml", Map.of("fault", fault), LIMIT);
        assertFalse(r.timedOut(), "the rank ended by itself");
        RankFault f = r.singleFault();
        assertTrue(f.location().startsWith(location.strip()), f.location() + " should start with " + location);
        for (String m : messages.strip().split(";")) {
            assertTrue(f.getMessage().contains(m), "'" + m + "' in: " + f.getMessage());
        }
        assertFalse(f.getMessage().contains(KernelFailure.LOST_MARK), "the kernel's own fault is the workflow's: " + f.getMessage());
        assertEquals(FaultKind.WORKFLOW, f.fault(), f.getMessage());
    }

    /** A kernel's exception that says its worker was lost is still the kernel's own: the kind, not the text, decides. */
    @Test
    void aKernelsExceptionSayingItsWorkerWasLostIsStillTheWorkflowsFault() {
        InterpreterHarness.Result r = InterpreterHarness.run("pykernel-faults.mpfl.xml", Map.of("fault", "lie"), LIMIT);
        RankFault f = r.singleFault();
        assertTrue(f.getMessage().contains("raised an exception") && f.getMessage().contains(KernelFailure.LOST_MARK + " just kidding"),
                f.getMessage());
        assertEquals(FaultKind.WORKFLOW, f.fault(), f.getMessage());
    }

    @Test
    void aWorkerKilledFromOutsideFailsTheRankAsLostWithinTwoSeconds(@TempDir Path dir) throws Exception {
        Path pidfile = dir.resolve("pid");
        CompletableFuture<InterpreterHarness.Result> run = CompletableFuture.supplyAsync(() -> InterpreterHarness.run(
                "pykernel-faults.mpfl.xml", Map.of("fault", "kill", "pidfile", pidfile.toString()), LIMIT));
        Await.until(Duration.ofSeconds(30), "the kernel wrote its pid", () -> Files.exists(pidfile));
        long pid = Long.parseLong(Files.readString(pidfile).strip());
        long killed = System.nanoTime();
        ProcessHandle.of(pid).orElseThrow().destroyForcibly(); // SIGKILL
        InterpreterHarness.Result r = run.get(30, TimeUnit.SECONDS);
        long took = TimeUnit.NANOSECONDS.toMillis(r.rank(0).endedNanos - killed);
        RankFault f = r.singleFault();
        assertTrue(f.getMessage().contains("SIGKILL"), f.getMessage());
        assertTrue(f.getMessage().contains(KernelFailure.LOST_MARK), "said for the reader: " + f.getMessage());
        assertEquals(FaultKind.INFRASTRUCTURE, f.fault(), "an infrastructure fault: " + f.getMessage());
        assertTrue(f.location().startsWith("pykernel-faults.mpfl.xml:26:7"), f.location());
        // the point: the worker's end is seen at once (its socket closes), not by a timeout; 2 s is the
        // issue's bound and holds on a loaded 2-core machine (usually under 100 ms)
        assertTrue(took < 2_000, "failed " + took + " ms after the kill");
    }

    @Test
    void tenMegabytesOfPrintsDoNotBreakTheProtocol() {
        InterpreterHarness.Result r = InterpreterHarness.run("pykernel-faults.mpfl.xml", Map.of("fault", "chatty"), LIMIT)
                .succeeded();
        assertEquals(2.0, r.output("y", 0), "both calls answered after printing 10 MB each");
        List<String> logs = r.rank(0).logs;
        assertTrue(logs.stream().anyMatch(l -> l.startsWith("info: xxxx")), "prints are log lines");
        assertTrue(logs.stream().anyMatch(l -> l.contains("lines of kernel output not shown")), "the rest is counted: "
                + logs.subList(Math.max(0, logs.size() - 3), logs.size()));
        assertTrue(logs.size() < 5_000, "the log is not flooded: " + logs.size() + " lines");
    }

    @Test
    void aMissingModuleFailsTheRankAtStartNamingIt() {
        InterpreterHarness.Result r = InterpreterHarness.run("pykernel-nomodule.mpfl.xml", Map.of(), LIMIT);
        RankFault f = r.singleFault();
        assertTrue(f.getMessage().contains("cannot load python kernel nosuchmodule:f"), f.getMessage());
        assertTrue(f.getMessage().contains("No module named 'nosuchmodule'"), f.getMessage());
        assertFalse(f.getMessage().contains("importlib"), "importlib's frames say nothing to the user: " + f.getMessage());
        assertTrue(f.location().startsWith("pykernel-nomodule.mpfl.xml:8:5"), f.location());
        assertTrue(r.rank(0).events.stream().noneMatch(e -> e.contains("compute python kernels:divide")),
                "failed at start, before the first compute: " + r.rank(0).events);
    }

    @Test
    void aModuleWhoseImportFailsFailsTheRankAtStartWithItsOwnTraceback() {
        RankFault f = InterpreterHarness.run("pykernel-importfails.mpfl.xml", Map.of(), LIMIT).singleFault();
        assertTrue(f.getMessage().contains("cannot load python kernel needs_missing:f"), f.getMessage());
        assertTrue(f.getMessage().contains("needs_missing.py\", line 3, in <module>"), f.getMessage());
        assertTrue(f.getMessage().contains("No module named 'mpfl_test_absent_dependency'"), f.getMessage());
        assertFalse(f.getMessage().contains("importlib"), "importlib's frames say nothing to the user: " + f.getMessage());
        assertTrue(f.location().startsWith("pykernel-importfails.mpfl.xml:7:5"), f.location());
    }

    @Test
    void aMissingFunctionFailsTheRankAtStartNamingIt() {
        RankFault f = InterpreterHarness.run("pykernel-nofunction.mpfl.xml", Map.of(), LIMIT).singleFault();
        assertTrue(f.getMessage().contains("module 'kernels' (kernels.py) has no function 'ghost'"), f.getMessage());
        assertTrue(f.location().startsWith("pykernel-nofunction.mpfl.xml:7:5"), f.location());
    }

    /**
     * A kernel module named as a module the worker imported before the workflow's libraries (Python's json, which
     * the worker uses itself) would be silently replaced by that one: the rank fails at start saying so.
     */
    @Test
    void aKernelModuleShadowedByOneTheWorkerImportedFailsTheRankAtStartSayingSo() {
        RankFault f = InterpreterHarness.run("pykernel-shadowed.mpfl.xml", Map.of(), LIMIT).singleFault();
        assertTrue(f.getMessage().contains("module 'json' is Python's own or an installed one"), f.getMessage());
        assertTrue(f.getMessage().contains("not the workflow's json.py"), f.getMessage());
        assertTrue(f.getMessage().contains("rename the kernel module"), f.getMessage());
        assertTrue(f.location().startsWith("pykernel-shadowed.mpfl.xml:7:5"), f.location());
    }

    /**
     * A rank whose kernel worker is still starting when another rank fails is aborted like any rank, not failed as a
     * worker that "cannot start" (the workflow's fault, which would also hide the first rank's fault kind), and its
     * starting worker is stopped. The interpreter is a wrapper that says it started and then never connects.
     */
    @Test
    void aRankAbortedWhileItsWorkerStartsIsAbortedAndTheWorkerStopped(@TempDir Path dir) throws Exception {
        Path started = dir.resolve("started");
        Path wrapper = dir.resolve("python-starting-slowly");
        Files.writeString(wrapper, "#!/bin/sh\necho $$ > " + started + ".tmp && mv " + started + ".tmp " + started
                + "\nexec sleep 60\n");
        assertTrue(wrapper.toFile().setExecutable(true, true));
        String python = KernelTestPython.use(wrapper.toString());
        InterpreterHarness.Result r;
        try {
            r = InterpreterHarness.run("pykernel-abortedstart.mpfl.xml", Map.of("started", started.toString()), LIMIT);
        } finally {
            KernelTestPython.restore(python);
        }
        assertFalse(r.timedOut(), "the ranks ended by themselves");
        RankFault f = r.singleFault();
        assertEquals(0, r.faultingRank(), "only rank 0 faulted: " + r.failures());
        assertTrue(f.getMessage().contains("rank 0 fails while rank 1 starts its worker"), f.getMessage());
        assertTrue(r.rank(1).aborted(), "rank 1 was aborted: " + r.failures());
        long pid = Long.parseLong(Files.readString(started).strip());
        Await.until(Duration.ofSeconds(10), "the starting worker " + pid + " is stopped",
                () -> ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true));
    }

    @Test
    void aBadInterpreterPathFailsTheRankAtStartNamingIt() {
        String good = KernelTestPython.use("/no/such/python3");
        try {
            InterpreterHarness.Result r = InterpreterHarness.run("pykernel-nofunction.mpfl.xml", Map.of(), LIMIT);
            RankFault f = r.singleFault();
            assertTrue(f.getMessage().contains("cannot start the python worker (/no/such/python3)"), f.getMessage());
            assertTrue(f.getMessage().contains("No such file or directory"), f.getMessage());
            // checked before anything is started: no "setsid: failed to execute …" warning ahead of the message
            assertTrue(r.ranks().stream().allMatch(rank -> rank.logs.stream().noneMatch(l -> l.contains("setsid"))),
                    r.ranks().get(0).logs.toString());
            assertTrue(f.getMessage().contains("--python"), "names the setting it came from: " + f.getMessage());
        } finally {
            KernelTestPython.restore(good);
        }
    }

    @Test
    void anInterpreterPathThatIsNotAnExecutableFileFailsTheRankAtStartSayingWhy(@TempDir Path dir) throws Exception {
        Path notExecutable = Files.writeString(dir.resolve("python3"), "#!/bin/sh\n");
        for (Map.Entry<Path, String> bad : Map.of(dir, "is not a regular file", notExecutable, "is not executable").entrySet()) {
            String good = KernelTestPython.use(bad.getKey().toString());
            try {
                InterpreterHarness.Result r = InterpreterHarness.run("pykernel-nofunction.mpfl.xml", Map.of(), LIMIT);
                String message = r.singleFault().getMessage();
                assertTrue(message.contains("cannot start the python worker (" + bad.getKey() + "): " + bad.getKey() + " "
                        + bad.getValue()), message);
                assertTrue(r.ranks().get(0).logs.stream().noneMatch(l -> l.contains("setsid")), r.ranks().get(0).logs.toString());
            } finally {
                KernelTestPython.restore(good);
            }
        }
    }
}
