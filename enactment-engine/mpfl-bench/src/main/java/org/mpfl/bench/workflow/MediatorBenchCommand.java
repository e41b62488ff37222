package org.mpfl.bench.workflow;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.mpfl.bench.BenchPlot;
import org.mpfl.bench.BenchOptions;
import org.mpfl.ir.cli.ArgumentSpec;
import org.mpfl.ir.cli.Arguments;
import org.mpfl.ir.cli.CliCommand;
import org.mpfl.ir.cli.UsageException;

/**
 * {@code mpflc bench mediator [--json] [--ranks 2,4,8] [--iterations 50] [--kb 200] [--hosts 2] [--capacity 1]
 * [--transport auto|soap|binary] [--repeat 3] [--warmup-seconds 15] [--host-jvm-arg ARG]… [--plot FILE.png]}:
 * the same iterative workflow (p ranks, every rank sharing a block of {@code --kb} KiB with all others
 * each iteration, plus a small compute) run with MPFL's direct messaging and in the engine's mediator
 * mode, on the same local service hosts ({@link MediatorBenchmark}; host JVMs {@code -Xmx2g -Xms2g
 * -XX:+UseParallelGC} unless {@code --host-jvm-arg} is given; {@code --capacity 1}: ranks round robin over the hosts;
 * {@code --transport}: what the direct runs' messages use, {@code auto} by default; each mode warmed up with
 * {@code --warmup-seconds} of untimed runs of the timed size, then timed {@code --repeat} times, medians reported).
 * Prints a table with the ratio, or with {@code --json} one object
 * {@code {"results":[{"p","iterations","bytes","direct_ms","mediator_ms","direct_loop_ms","repeats","direct_min_ms",
 * "direct_max_ms","mediator_min_ms","mediator_max_ms"}…]}} ({@code bytes}: one rank's block; {@code direct_ms} the
 * whole run as the engine times it, {@code direct_loop_ms} the document's loop alone; medians over the repeats). Progress on stderr. Reached as {@code mpflc bench mediator}
 * through the runtime's {@code bench} command, which hands sub-commands it does not know to commands
 * named {@code "bench <sub>"}.
 */
public final class MediatorBenchCommand implements CliCommand {
    @Override
    public String name() {
        return "bench mediator";
    }

    @Override
    public String summary() {
        return "[--json] [--ranks 2,4,8] [--iterations 50] [--kb 200] [--transport auto|soap] [--repeat 3] [--plot FILE.png]  direct messaging vs the engine's mediator mode";
    }

    /** The parsed options. */
    record Options(boolean json, List<Integer> ranks, int iterations, int kb, int hosts, int capacity, List<String> hostJvmArgs,
                   Path plot, String transport, int repeat, int warmupSeconds) {
        int doubles() {
            return kb * 1024 / 8;
        }
    }

    static final ArgumentSpec SPEC = ArgumentSpec.of("bench mediator", "Direct messaging vs the engine's mediator mode:"
            + " a ring of --iterations rounds with --kb per rank at each rank count.")
            .value("--ranks", "2,4,8", "2,4,8", "rank counts")
            .value("--iterations", "N", "50", "rounds of the ring")
            .value("--kb", "N", "200", "KiB each rank sends per round")
            .value("--hosts", "N", "2", "local service hosts")
            .value("--capacity", "N", "1", "each host's capacity (0: its own)")
            .value("--transport", "auto|soap|binary|local", "auto", "the transport of direct messaging")
            .value("--repeat", "N", "3", "measured runs per case (the median is reported)")
            .value("--warmup-seconds", "S", String.valueOf(MediatorBenchmark.DEFAULT_WARMUP_SECONDS), "untimed warm-up per case")
            .with(s -> BenchOptions.hostJvmArgs(s, BenchCommands.DEFAULT_HOST_JVM_ARGS))
            .with(BenchOptions::output);

    static Options parse(List<String> args) throws UsageException {
        Arguments a = SPEC.parse(args);
        List<String> hostJvmArgs = BenchOptions.hostJvmArgs(a, BenchCommands.DEFAULT_HOST_JVM_ARGS);
        return new Options(a.flag("--json"), a.intList("--ranks", 1), a.intAtLeast("--iterations", 1), a.intAtLeast("--kb", 1),
                a.intAtLeast("--hosts", 1), a.intAtLeast("--capacity", 0), hostJvmArgs, a.path("--plot"),
                a.choices("--transport", List.of("auto", "soap", "binary", "local")).get(0), a.intAtLeast("--repeat", 1),
                a.intAtLeast("--warmup-seconds", 0));
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws Exception {
        Options o = parse(args);
        List<MediatorBenchmark.Result> results = new MediatorBenchmark(o.ranks(), o.iterations(), o.doubles(), o.hosts(),
                o.capacity(), o.hostJvmArgs(), err).transport(o.transport()).repeats(o.repeat())
                .warmupSeconds(o.warmupSeconds()).run();
        if (o.plot() != null) {
            plot(results, o.plot());
            err.println("[bench mediator] plot written to " + o.plot());
        }
        if (o.json()) {
            out.println(toJson(results));
        } else {
            printTable(results, out);
        }
        return 0;
    }

    /** Run time against p, one line per mode (the runtime's {@link BenchPlot}). */
    static void plot(List<MediatorBenchmark.Result> results, Path png) throws java.io.IOException {
        List<double[]> direct = new ArrayList<>();
        List<double[]> loop = new ArrayList<>();
        List<double[]> mediated = new ArrayList<>();
        for (MediatorBenchmark.Result r : results) {
            direct.add(new double[] {r.p(), r.directMs()});
            loop.add(new double[] {r.p(), r.directLoopMs()});
            mediated.add(new double[] {r.p(), r.mediatorMs()});
        }
        String title = results.isEmpty() ? "run time (ms)"
                : String.format(Locale.ROOT, "run time (ms), %d iterations, %d KiB per rank", results.get(0).iterations(),
                        results.get(0).bytes() / 1024);
        BenchPlot.writePanels(List.of(new BenchPlot.Panel(title, "ranks p", List.of(
                new BenchPlot.Line("MPFL direct messaging (engine run)", direct, false),
                new BenchPlot.Line("MPFL direct messaging (loop only)", loop, true),
                new BenchPlot.Line("engine mediator mode (BPEL-style)", mediated, false)))), png);
    }

    static String toJson(List<MediatorBenchmark.Result> results) throws Exception {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (MediatorBenchmark.Result r : results) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("p", r.p());
            m.put("iterations", r.iterations());
            m.put("bytes", r.bytes());
            m.put("direct_ms", Math.round(r.directMs() * 10) / 10.0);
            m.put("mediator_ms", Math.round(r.mediatorMs() * 10) / 10.0);
            m.put("direct_loop_ms", Double.isNaN(r.directLoopMs()) ? null : Math.round(r.directLoopMs() * 10) / 10.0);
            m.put("repeats", r.repeats());
            m.put("direct_min_ms", Math.round(r.directMinMs() * 10) / 10.0);
            m.put("direct_max_ms", Math.round(r.directMaxMs() * 10) / 10.0);
            m.put("mediator_min_ms", Math.round(r.mediatorMinMs() * 10) / 10.0);
            m.put("mediator_max_ms", Math.round(r.mediatorMaxMs() * 10) / 10.0);
            rows.add(m);
        }
        return new ObjectMapper().writeValueAsString(Map.of("results", rows));
    }

    static void printTable(List<MediatorBenchmark.Result> results, PrintStream out) {
        out.println("Direct messaging vs mediator: p ranks, every rank shares its block with all others each iteration");
        out.printf(Locale.ROOT, "%4s %10s %10s %12s %14s %9s %15s %11s %17s %17s  %s%n", "p", "iterations", "bytes", "direct_ms",
                "mediator_ms", "ratio", "direct_loop_ms", "loop_ratio", "direct_range", "mediator_range", "target (p>=4: ratio >= 3)");
        for (MediatorBenchmark.Result r : results) {
            String target = r.p() < 4 ? "-" : r.ratio() >= 3 ? "met" : "NOT met";
            out.printf(Locale.ROOT, "%4d %10d %10d %12.1f %14.1f %9.2f %15.1f %11.2f %17s %17s  %s%n", r.p(), r.iterations(), r.bytes(),
                    r.directMs(), r.mediatorMs(), r.ratio(), r.directLoopMs(), r.mediatorMs() / r.directLoopMs(),
                    range(r.directMinMs(), r.directMaxMs()), range(r.mediatorMinMs(), r.mediatorMaxMs()), target);
        }
        out.println("direct_ms: the engine's run of the MPFL document, creation to end (placement, domain, run fan-out, the loop,"
                + " completion); direct_loop_ms: the document's own loop, barrier to barrier (rank 0); mediator_ms: the"
                + " mediator's rounds, first call to last answer; bytes: one rank's block per iteration");
        if (!results.isEmpty()) {
            out.printf(Locale.ROOT, "times are medians of %d runs of each mode after an untimed warm-up; *_range: fastest-slowest run%n",
                    results.get(0).repeats());
        }
    }

    private static String range(double min, double max) {
        return String.format(Locale.ROOT, "%.0f-%.0f", min, max);
    }
}
