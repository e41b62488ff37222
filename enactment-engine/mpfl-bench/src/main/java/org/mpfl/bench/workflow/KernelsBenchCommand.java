package org.mpfl.bench.workflow;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.mpfl.bench.BenchOptions;
import org.mpfl.bench.BenchPlot;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.IrTarget;
import org.mpfl.ir.MpflType;
import org.mpfl.ir.cli.ArgumentSpec;
import org.mpfl.ir.cli.Arguments;
import org.mpfl.ir.cli.CliCommand;
import org.mpfl.ir.cli.UsageException;
import org.mpfl.ir.diag.SourceLocation;
import org.mpfl.protocol.settings.ProtocolSettings;
import org.mpfl.runtime.interp.kernel.KernelLibraries;
import org.mpfl.runtime.interp.kernel.RankKernels;

/**
 * {@code mpflc bench kernels}: what a {@code <compute python>} call costs (docs/benchmarks.md,
 * "Kernels"). Through a rank's real kernel worker (docs/kernel-protocol.md) it times an empty call and
 * a 1,000,000-double array updated in place and returned, and a new array returned; against the same
 * work called in-process in Java and the same Python functions timed inside the interpreter alone.
 * Medians of {@code --calls} calls after a warm-up. {@code --plot FILE.png} draws them ({@link #plot}).
 */
public final class KernelsBenchCommand implements CliCommand {
    static final String MODULE = """
            import numpy
            def empty():
                return {}
            def scale(a):
                a *= 1.000001
                return {"a": a}
            def fresh(a):
                return {"b": a * 2.0}
            """;

    private static final ArgumentSpec SPEC = ArgumentSpec.of("bench kernels", "The cost of a Python kernel call through a"
            + " rank's worker: an empty call, a 1,000,000-double array in and out (in place; as a new array), vs the same"
            + " work in-process in Java and in Python alone (medians).")
            .value("--python", "PATH", "python3", "the interpreter (with NumPy)")
            .value("--calls", "N", "2000", "timed calls of each kind (after N/10 warm-up calls)")
            .value("--size", "N", "1000000", "doubles of the array calls")
            .flag("--heat2d", "also heat2d-py against heat2d (Java) per iteration, on an engine and service-host processes")
            .value("--samples", "DIR", "samples", "the repository's samples directory (--heat2d)")
            .value("--hosts", "N", "2", "service-host processes (--heat2d)")
            .value("--heat2d-size", "N", "64", "plate rows and columns (--heat2d)")
            .value("--heat2d-ranks", "N", "4", "ranks of each heat2d run (--heat2d)")
            .value("--heat2d-repeat", "N", "3", "rounds of heat2d runs, both variants side by side in each (--heat2d;"
                    + " after an untimed long run of each); the round with the median ratio is reported, and every round's ratio")
            .value("--heat2d-iterations", "SHORT,LONG", "200,1200", "iterations of the short and the long run of a round"
                    + " (--heat2d): an iteration is their difference in time over their difference in iterations")
            .with(BenchOptions::output);

    @Override
    public String name() {
        return "bench kernels";
    }

    @Override
    public String summary() {
        return "Python kernel calls: empty round trip, 1,000,000 doubles in and out, vs Java in-process and Python alone";
    }

    @Override
    public int run(List<String> argList, PrintStream out, PrintStream err) throws Exception {
        Arguments args = SPEC.parse(argList);
        String python = args.value("--python");
        int calls = args.intValue("--calls");
        int size = args.intValue("--size");
        if (calls < 10 || size < 1) {
            throw new UsageException("--calls must be at least 10 and --size at least 1");
        }
        Path dir = Files.createTempDirectory("mpfl-bench-kernels-");
        try {
            Files.writeString(dir.resolve("bench_kernels.py"), MODULE);
            System.setProperty(ProtocolSettings.KERNEL_PYTHON.name(), python);
            Map<String, Double> figures = new LinkedHashMap<>();
            err.println("[bench] kernel calls through a worker of " + python + " (" + calls + " calls each)");
            worker(dir, calls, size, figures);
            err.println("[bench] the same in-process in Java");
            java(calls, size, figures);
            err.println("[bench] the same in Python alone");
            standalone(python, dir, calls, size, figures);
            if (args.flag("--heat2d")) {
                heat2d(args, python, figures, err);
            }
            Path png = args.path("--plot");
            if (png != null) {
                plot(figures, size, args.value("--heat2d-size") + " × " + args.value("--heat2d-size") + " plate, "
                        + args.value("--heat2d-ranks") + " ranks", png);
                err.println("[bench kernels] plot written to " + png);
            }
            if (args.flag("--json")) {
                StringBuilder json = new StringBuilder("{");
                figures.forEach((k, v) -> json.append(json.length() > 1 ? ", " : "").append('"').append(k).append("\": ")
                        .append(String.format(java.util.Locale.ROOT, "%.3f", v)));
                out.println(json.append('}'));
            } else {
                out.printf("kernels (median per call, µs; %d doubles)%n", size);
                out.printf("  %-34s %12s %12s %12s%n", "", "worker", "Java", "Python alone");
                for (String kind : List.of("empty", "inPlace", "newArray")) {
                    out.printf(java.util.Locale.ROOT, "  %-34s %12.1f %12.1f %12.1f%n", label(kind),
                            figures.get(kind + ".worker"), figures.get(kind + ".java"), figures.get(kind + ".python"));
                }
                if (figures.containsKey("heat2d.python")) {
                    out.printf(java.util.Locale.ROOT, "heat2d per iteration (ms; %s × %s plate, %s ranks; the round of the median"
                                    + " ratio of %s, both variants side by side)%n", args.value("--heat2d-size"), args.value("--heat2d-size"),
                            args.value("--heat2d-ranks"), args.value("--heat2d-repeat"));
                    out.printf(java.util.Locale.ROOT, "  heat2d (Java)                      %10.3f%n", figures.get("heat2d.java"));
                    out.printf(java.util.Locale.ROOT, "  the NumPy sweep alone              %10.3f   (called through a worker: %.3f)%n",
                            figures.get("sweep.numpy") / 1000.0, figures.get("sweep.worker") / 1000.0);
                    out.printf(java.util.Locale.ROOT, "  reference: heat2d (Java) + sweep   %10.3f%n", figures.get("heat2d.reference"));
                    out.printf(java.util.Locale.ROOT, "  heat2d-py                          %10.3f   %.2fx the reference (rounds: %.2fx to %.2fx)%n",
                            figures.get("heat2d.python"), figures.get("heat2d.ratio"), figures.get("heat2d.ratioLowest"),
                            figures.get("heat2d.ratioHighest"));
                    StringBuilder each = new StringBuilder();
                    for (int r = 1; figures.containsKey("heat2d.round" + r + ".ratio"); r++) {
                        each.append(String.format(java.util.Locale.ROOT, " %.2fx (%.3f / %.3f ms)", figures.get("heat2d.round" + r + ".ratio"),
                                figures.get("heat2d.round" + r + ".python"), figures.get("heat2d.round" + r + ".java")));
                    }
                    out.println("  every round, in the order run:   " + each);
                    if (figures.containsKey("heat2d.steady.ratio")) {
                        out.printf(java.util.Locale.ROOT, "  inside the runs (traces; median of the rounds): iteration %.3f ms (Java) against %.3f ms"
                                        + " (Python), %.2fx the Java + sweep; compute %.0f µs (Java sweep) against %.0f µs (Python call;"
                                        + " %.0f µs outside a workflow)%n",
                                figures.get("heat2d.steady.java"), figures.get("heat2d.steady.python"), figures.get("heat2d.steady.ratio"),
                                figures.get("compute.java"), figures.get("compute.python"), figures.get("sweep.worker"));
                    }
                }
            }
            return 0;
        } finally {
            try (var walk = Files.walk(dir)) {
                walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /**
     * The PNG ({@link BenchPlot}, log y): the per-call medians of the three calls for the worker, Java in-process and
     * Python alone, with the targets (≤ 100 µs for the empty call, ≤ 3 ms for the arrays) dashed; when
     * {@code --heat2d} ran, beside it every round's heat2d (Java), the reference (it + the NumPy sweep alone) and
     * heat2d-py per iteration, with the target, 1.2 × the reference, dashed.
     */
    static void plot(Map<String, Double> figures, int size, String plate, Path png) throws IOException {
        List<String> kinds = List.of("empty", "inPlace", "newArray");
        List<BenchPlot.Line> calls = new ArrayList<>();
        Map<String, String> variants = Map.of("worker", "through a rank's worker", "java", "Java in-process", "python", "Python alone");
        for (String variant : List.of("worker", "java", "python")) {
            List<double[]> points = new ArrayList<>();
            for (int i = 0; i < kinds.size(); i++) {
                points.add(new double[] {i, figures.get(kinds.get(i) + "." + variant)});
            }
            calls.add(new BenchPlot.Line(variants.get(variant), points, false));
        }
        // one line with a gap (NaN): 100 µs over the empty call, 3 ms over the two array calls
        calls.add(new BenchPlot.Line("targets: worker ≤ 100 µs (empty), ≤ 3 ms (arrays)", List.of(new double[] {-0.45, 100},
                new double[] {0.45, 100}, new double[] {0.5, Double.NaN}, new double[] {0.55, 3000}, new double[] {2.45, 3000}), true));
        List<BenchPlot.Panel> panels = new ArrayList<>(List.of(BenchPlot.Panel.ofCategories(
                String.format(java.util.Locale.ROOT, "Python kernel call: median per call (µs), arrays of %,d doubles", size),
                "the call", kinds.stream().map(KernelsBenchCommand::label).toList(), calls)));
        if (figures.containsKey("heat2d.round1.java")) {
            double sweepMs = figures.get("sweep.numpy") / 1000.0;
            List<String> rounds = new ArrayList<>();
            List<double[]> heat2dJava = new ArrayList<>();
            List<double[]> reference = new ArrayList<>();
            List<double[]> heat2dPython = new ArrayList<>();
            List<double[]> target = new ArrayList<>();
            for (int r = 1; figures.containsKey("heat2d.round" + r + ".java"); r++) {
                double javaMs = figures.get("heat2d.round" + r + ".java");
                boolean reported = figures.get("heat2d.round" + r + ".ratio").equals(figures.get("heat2d.ratio"));
                rounds.add("round " + r + (reported ? " (reported)" : ""));
                heat2dJava.add(new double[] {r - 1, javaMs});
                reference.add(new double[] {r - 1, javaMs + sweepMs});
                heat2dPython.add(new double[] {r - 1, figures.get("heat2d.round" + r + ".python")});
                target.add(new double[] {r - 1, 1.2 * (javaMs + sweepMs)});
            }
            panels.add(BenchPlot.Panel.ofCategories("heat2d per iteration (ms), " + plate, "the rounds, in the order run", rounds,
                    List.of(new BenchPlot.Line("heat2d (Java)", heat2dJava, false),
                            new BenchPlot.Line("reference: heat2d (Java) + the NumPy sweep alone", reference, false),
                            new BenchPlot.Line("heat2d-py", heat2dPython, false),
                            new BenchPlot.Line("target: heat2d-py ≤ 1.2 × the reference", target, true))));
        }
        BenchPlot.writePanels(panels, png);
    }

    /**
     * heat2d-py against "the NumPy sweep alone + the same messaging as heat2d": the messaging is heat2d
     * (Java)'s whole iteration, whose own sweep of a block is a few microseconds (so the reference is
     * larger than the by that much: the ratio errs in heat2d-py's favour by well under 0.1 %).
     * Each round measures both variants side by side; the figures reported are those of the round whose
     * ratio is the median, with the lowest and highest ratio of the rounds beside them.
     */
    private static void heat2d(Arguments args, String python, Map<String, Double> figures, PrintStream err) throws Exception {
        int size = args.intValue("--heat2d-size");
        int ranks = args.intValue("--heat2d-ranks");
        int repeats = args.intValue("--heat2d-repeat");
        Path samples = Path.of(args.value("--samples"));
        List<Integer> iterations = args.intList("--heat2d-iterations", 1);
        if (iterations.size() != 2 || iterations.get(0) >= iterations.get(1)) {
            throw new UsageException("--heat2d-iterations wants SHORT,LONG with SHORT < LONG, got " + args.value("--heat2d-iterations"));
        }
        if (ranks < 1 || repeats < 1) {
            throw new UsageException("--heat2d-ranks and --heat2d-repeat must be at least 1");
        }
        List<Heat2dKernelsBenchmark.Round> rounds = Heat2dKernelsBenchmark.rounds(samples, python, args.intValue("--hosts"), size,
                ranks, iterations.get(0), iterations.get(1), repeats, err);
        int[] grid = grid(ranks);
        double sweepMs = sweepAlone(python, samples.resolve("heat2d-py/kernels"), size / grid[0], size / grid[1]) / 1000.0;
        figures.put("sweep.worker", sweepThroughWorker(samples.resolve("heat2d-py/kernels"), size / grid[0], size / grid[1],
                args.intValue("--calls")));
        java.util.function.ToDoubleFunction<Heat2dKernelsBenchmark.Round> ratio = r -> r.python() / (r.java() + sweepMs);
        Heat2dKernelsBenchmark.Round median = BenchCommands.medianRun(rounds, ratio);
        figures.put("heat2d.java", median.java());
        figures.put("heat2d.python", median.python());
        figures.put("sweep.numpy", sweepMs * 1000.0);
        figures.put("heat2d.reference", median.java() + sweepMs);
        figures.put("heat2d.ratio", ratio.applyAsDouble(median));
        figures.put("heat2d.ratioLowest", rounds.stream().mapToDouble(ratio).min().orElseThrow());
        figures.put("heat2d.ratioHighest", rounds.stream().mapToDouble(ratio).max().orElseThrow());
        for (int r = 0; r < rounds.size(); r++) {
            figures.put("heat2d.round" + (r + 1) + ".ratio", ratio.applyAsDouble(rounds.get(r)));
            figures.put("heat2d.round" + (r + 1) + ".java", rounds.get(r).java());
            figures.put("heat2d.round" + (r + 1) + ".python", rounds.get(r).python());
        }
        List<Heat2dKernelsBenchmark.Round> traced = rounds.stream().filter(r -> r.javaPhases() != null && r.pythonPhases() != null).toList();
        if (!traced.isEmpty()) {
            // the same comparison from inside the runs: the steady iteration between their first and last traced sweep
            java.util.function.ToDoubleFunction<Heat2dKernelsBenchmark.Round> steady =
                    r -> r.pythonPhases().iterationUs() / (r.javaPhases().iterationUs() + sweepMs * 1000.0);
            Heat2dKernelsBenchmark.Round m = BenchCommands.medianRun(traced, steady);
            figures.put("heat2d.steady.java", m.javaPhases().iterationUs() / 1000.0);
            figures.put("heat2d.steady.python", m.pythonPhases().iterationUs() / 1000.0);
            figures.put("heat2d.steady.ratio", steady.applyAsDouble(m));
            figures.put("compute.java", m.javaPhases().medianUs().getOrDefault("compute", Double.NaN));
            figures.put("compute.python", m.pythonPhases().medianUs().getOrDefault("compute", Double.NaN));
        }
    }

    /**
     * The ranks along rows and columns of a 2-D grid of {@code ranks}, as balanced as the count allows
     * (what {@code dims(ranks, 2)} gives for the counts the bench uses: 4 is 2 × 2, 2 is 2 × 1).
     */
    static int[] grid(int ranks) {
        int columns = (int) Math.sqrt(ranks);
        while (ranks % columns != 0) {
            columns--;
        }
        return new int[] {ranks / columns, columns};
    }

    /** Median µs of heat2d-py's {@code jacobi.sweep} on one {@code rows} × {@code columns} block with four neighbours, in Python alone. */
    private static double sweepAlone(String python, Path kernels, int rows, int columns) throws IOException, InterruptedException {
        String script = """
                import statistics, sys, time, numpy
                sys.path.insert(0, sys.argv[1])
                import jacobi
                rows, columns = int(sys.argv[2]), int(sys.argv[3])
                field = jacobi.setup(2 * rows, 2 * columns, [2, 2], [0, 0], -1, 2, -1, 1)["field"]
                across, down = numpy.zeros(columns), numpy.zeros(rows)
                def once():
                    jacobi.sweep(field, rows, columns, 0, 2, 0, 1, across, across, down, down)
                for _ in range(1000):
                    once()
                times = []
                for _ in range(5000):
                    t = time.perf_counter_ns(); once(); times.append(time.perf_counter_ns() - t)
                print(statistics.median(times) / 1000.0)
                """;
        Path dir = Files.createTempDirectory("mpfl-bench-sweep-");
        try {
            return Double.parseDouble(python(python, dir, "the NumPy sweep", script, kernels.toAbsolutePath().toString(),
                    Integer.toString(rows), Integer.toString(columns)));
        } finally {
            org.mpfl.ir.files.FileTrees.deleteQuietly(dir);
        }
    }

    /**
     * Median µs of heat2d-py's {@code jacobi:sweep} called through a rank's worker with the inputs and outputs of
     * heat2d-py.mpfl.xml (a {@code rows} × {@code columns} block, four neighbours), outside any workflow: the call's
     * own cost, against which the compute spans inside the runs show what waiting for a core adds.
     */
    private static double sweepThroughWorker(Path kernels, int rows, int columns, int calls) throws Exception {
        SourceLocation at = new SourceLocation("bench", 1, 1);
        List<IrTarget> outputs = new java.util.ArrayList<>(List.of(new IrTarget("field", null, MpflType.DOUBLE_ARRAY, at),
                new IrTarget("localResidual", null, MpflType.DOUBLE, at)));
        for (String edge : List.of("northEdge", "southEdge", "westEdge", "eastEdge")) {
            outputs.add(new IrTarget(edge, null, MpflType.DOUBLE_ARRAY, at));
        }
        IrActivity.Compute sweep = new IrActivity.Compute(null, List.of(), outputs, at, "jacobi:sweep", null);
        try (RankKernels worker = new RankKernels(KernelLibraries.inDirectory(kernels.toAbsolutePath(), List.of("jacobi.py")),
                (l, t) -> { })) {
            worker.start(List.of(sweep));
            double[] field = new double[(rows + 2) * (columns + 2)];
            Map<String, Object> inputs = new LinkedHashMap<>();
            inputs.put("field", field);
            inputs.put("blockRows", rows);
            inputs.put("blockColumns", columns);
            for (String neighbour : List.of("north", "south", "west", "east")) {
                inputs.put(neighbour, 1); // an inner block: all four halos are stored
            }
            inputs.put("northHalo", new double[columns]);
            inputs.put("southHalo", new double[columns]);
            inputs.put("westHalo", new double[rows]);
            inputs.put("eastHalo", new double[rows]);
            return median(calls, () -> worker.call(sweep, inputs));
        }
    }

    /** Runs {@code script} (written into {@code dir}) with {@code python} and its arguments; its standard output, stripped. */
    private static String python(String python, Path dir, String what, String script, String... scriptArgs)
            throws IOException, InterruptedException {
        Path file = dir.resolve("timing.py");
        Files.writeString(file, script);
        Path output = dir.resolve("timing.out");
        List<String> command = new java.util.ArrayList<>(List.of(python, file.toString()));
        command.addAll(List.of(scriptArgs));
        Process p = new ProcessBuilder(command).redirectOutput(output.toFile()).redirectError(ProcessBuilder.Redirect.INHERIT)
                .redirectInput(new File("/dev/null")).start();
        if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IOException(python + " did not time " + what + " (exit " + (p.isAlive() ? "none" : p.exitValue()) + ")");
        }
        return Files.readString(output, StandardCharsets.UTF_8).strip();
    }

    private static String label(String kind) {
        return switch (kind) {
            case "empty" -> "empty call round trip";
            case "inPlace" -> "array in, updated in place, out";
            default -> "array in, a new array out";
        };
    }

    private static IrActivity.Compute site(String function, String out, MpflType type) {
        SourceLocation at = new SourceLocation("bench", 1, 1);
        List<IrTarget> outputs = out == null ? List.of() : List.of(new IrTarget(out, null, type, at));
        return new IrActivity.Compute(null, List.of(), outputs, at, "bench_kernels:" + function, null);
    }

    private static void worker(Path dir, int calls, int size, Map<String, Double> figures) throws Exception {
        IrActivity.Compute empty = site("empty", null, null);
        IrActivity.Compute scale = site("scale", "a", MpflType.DOUBLE_ARRAY);
        IrActivity.Compute fresh = site("fresh", "b", MpflType.DOUBLE_ARRAY);
        try (RankKernels kernels = new RankKernels(KernelLibraries.inDirectory(dir, List.of("bench_kernels.py")), (l, t) -> { })) {
            kernels.start(List.of(empty, scale, fresh));
            double[] a = new double[size];
            Arrays.fill(a, 1.0);
            figures.put("empty.worker", median(calls, () -> kernels.call(empty, Map.of())));
            figures.put("inPlace.worker", median(calls, () -> kernels.call(scale, Map.of("a", a))));
            figures.put("newArray.worker", median(calls, () -> kernels.call(fresh, Map.of("a", a))));
        }
    }

    private static void java(int calls, int size, Map<String, Double> figures) throws Exception {
        double[] a = new double[size];
        Arrays.fill(a, 1.0);
        Map<String, Object> sink = new java.util.HashMap<>();
        figures.put("empty.java", median(calls, () -> sink.put("r", Map.of())));
        figures.put("inPlace.java", median(calls, () -> {
            for (int i = 0; i < a.length; i++) {
                a[i] *= 1.000001;
            }
            sink.put("a", a);
        }));
        figures.put("newArray.java", median(calls, () -> {
            double[] b = new double[a.length];
            for (int i = 0; i < a.length; i++) {
                b[i] = a[i] * 2.0;
            }
            sink.put("b", b);
        }));
    }

    private static void standalone(String python, Path dir, int calls, int size, Map<String, Double> figures)
            throws IOException, InterruptedException {
        String script = """
                import statistics, sys, time, numpy
                sys.path.insert(0, sys.argv[1])
                import bench_kernels as k
                calls, size = int(sys.argv[2]), int(sys.argv[3])
                a = numpy.ones(size)
                def median(f):
                    for _ in range(calls // 10):
                        f()
                    times = []
                    for _ in range(calls):
                        t = time.perf_counter_ns(); f(); times.append(time.perf_counter_ns() - t)
                    return statistics.median(times) / 1000.0
                print(median(k.empty), median(lambda: k.scale(a)), median(lambda: k.fresh(a)))
                """;
        String[] words = python(python, dir, "the kernels", script, dir.toString(), Integer.toString(calls), Integer.toString(size))
                .split("\\s+");
        figures.put("empty.python", Double.parseDouble(words[0]));
        figures.put("inPlace.python", Double.parseDouble(words[1]));
        figures.put("newArray.python", Double.parseDouble(words[2]));
    }

    /** A call to time. */
    @FunctionalInterface
    interface Call {
        void run() throws Exception;
    }

    /** Median µs of {@code calls} calls after {@code calls / 10} warm-up calls. */
    static double median(int calls, Call call) throws Exception {
        for (int i = 0; i < calls / 10; i++) {
            call.run();
        }
        long[] nanos = new long[calls];
        for (int i = 0; i < calls; i++) {
            long t = System.nanoTime();
            call.run();
            nanos[i] = System.nanoTime() - t;
        }
        Arrays.sort(nanos);
        return nanos[calls / 2] / 1000.0;
    }
}
