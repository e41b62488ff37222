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
 * {@code mpflc bench startup [--json] [--ranks 4,16,64] [--hosts 2] [--repeat 5] [--capacity N]
 * [--host-jvm-arg ARG]… [--plot FILE.png]}: the engine's start-up time (run accepted → every rank
 * running, the run's {@code startupMs}) for documents whose ranks do one barrier, and the end-to-end
 * time of a run from the REST start request to SUCCEEDED seen by the client, plus the empty workflow
 * (one rank, no activities) as the overhead of a run ({@link StartupBenchmark}); first runs (archive
 * deployment) apart from the median of {@code --repeat} warm runs. Host JVMs {@code -Xmx2g -Xms2g
 * -XX:+UseParallelGC} unless {@code --host-jvm-arg} is given; {@code --capacity 0} (default) keeps the
 * hosts' own capacity (their core count) as {@code mpflc run --local}. Prints a table, or with
 * {@code --json} one object
 * {@code {"results":[{"ranks","first_startup_ms","startup_ms","first_end_to_end_ms","end_to_end_ms"}…],
 * "empty":{"ranks","first_startup_ms","startup_ms","first_end_to_end_ms","end_to_end_ms"}}}. Progress on stderr.
 */
public final class StartupBenchCommand implements CliCommand {
    @Override
    public String name() {
        return "bench startup";
    }

    @Override
    public String summary() {
        return "[--json] [--ranks 4,16,64] [--hosts 2] [--repeat 5] [--plot FILE.png]  engine start-up time and the overhead of an empty run";
    }

    /** The parsed options. */
    record Options(boolean json, List<Integer> ranks, int hosts, int repeat, int capacity, List<String> hostJvmArgs, Path plot) {
    }

    static final ArgumentSpec SPEC = ArgumentSpec.of("bench startup", "The engine's start-up time (run accepted to every rank"
            + " running) and end-to-end time of small runs, and the empty workflow's overhead.")
            .value("--ranks", "4,16,64", "4,16,64", "rank counts")
            .value("--hosts", "N", "2", "local service hosts")
            .value("--repeat", "N", "5", "warm runs per case (the median is reported)")
            .value("--capacity", "N", "0", "each host's capacity (0: its own, as mpflc run --local)")
            .with(s -> BenchOptions.hostJvmArgs(s, BenchCommands.DEFAULT_HOST_JVM_ARGS))
            .with(BenchOptions::output);

    static Options parse(List<String> args) throws UsageException {
        Arguments a = SPEC.parse(args);
        List<String> hostJvmArgs = BenchOptions.hostJvmArgs(a, BenchCommands.DEFAULT_HOST_JVM_ARGS);
        return new Options(a.flag("--json"), a.intList("--ranks", 1), a.intAtLeast("--hosts", 1), a.intAtLeast("--repeat", 1),
                a.intAtLeast("--capacity", 0), hostJvmArgs, a.path("--plot"));
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws Exception {
        Options o = parse(args);
        StartupBenchmark.Results r = new StartupBenchmark(o.ranks(), o.repeat(), o.hosts(), o.capacity(), o.hostJvmArgs(), err).run();
        if (o.plot() != null) {
            plot(r, o.plot());
            err.println("[bench startup] plot written to " + o.plot());
        }
        if (o.json()) {
            out.println(toJson(r));
        } else {
            printTable(r, o.repeat(), out);
        }
        return 0;
    }

    static String toJson(StartupBenchmark.Results r) throws Exception {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (StartupBenchmark.Result x : r.results()) {
            rows.add(row(x));
        }
        Map<String, Object> all = new LinkedHashMap<>();
        all.put("results", rows);
        all.put("empty", row(r.empty()));
        return new ObjectMapper().writeValueAsString(all);
    }

    private static Map<String, Object> row(StartupBenchmark.Result x) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("ranks", x.ranks());
        m.put("first_startup_ms", ms(x.firstStartupMs()));
        m.put("startup_ms", ms(x.startupMs()));
        m.put("first_end_to_end_ms", ms(x.firstEndToEndMs()));
        m.put("end_to_end_ms", ms(x.endToEndMs()));
        return m;
    }

    private static Double ms(double v) {
        return Double.isFinite(v) ? Math.round(v * 10) / 10.0 : null;
    }

    static void printTable(StartupBenchmark.Results r, int repeat, PrintStream out) {
        out.println("Start-up and overhead (ms): first run deploys the document's service; warm = median of " + repeat + " runs");
        out.printf(Locale.ROOT, "%-16s %6s %16s %15s %20s %19s%n", "workflow", "ranks", "first_startup_ms", "startup_ms",
                "first_end_to_end_ms", "end_to_end_ms");
        for (StartupBenchmark.Result x : r.results()) {
            line(out, "one barrier", x);
        }
        line(out, "empty", r.empty());
        out.println("startup_ms: the engine's startupMs, from placement (with deployment) until every rank accepted run;"
                + " end_to_end_ms: the client's REST start request until it reads SUCCEEDED (polling every "
                + StartupBenchmark.POLL_MS + " ms)");
    }

    private static void line(PrintStream out, String what, StartupBenchmark.Result x) {
        out.printf(Locale.ROOT, "%-16s %6d %16.1f %15.1f %20.1f %19.1f%n", what, x.ranks(), x.firstStartupMs(), x.startupMs(),
                x.firstEndToEndMs(), x.endToEndMs());
    }

    /** Two panels against the rank count: start-up, and end to end with the empty workflow as a reference line. */
    static void plot(StartupBenchmark.Results r, Path png) throws java.io.IOException {
        List<double[]> firstStartup = new ArrayList<>();
        List<double[]> startup = new ArrayList<>();
        List<double[]> firstE2e = new ArrayList<>();
        List<double[]> e2e = new ArrayList<>();
        for (StartupBenchmark.Result x : r.results()) {
            firstStartup.add(new double[] {x.ranks(), x.firstStartupMs()});
            startup.add(new double[] {x.ranks(), x.startupMs()});
            firstE2e.add(new double[] {x.ranks(), x.firstEndToEndMs()});
            e2e.add(new double[] {x.ranks(), x.endToEndMs()});
        }
        double lo = r.results().stream().mapToInt(StartupBenchmark.Result::ranks).min().orElse(1);
        double hi = r.results().stream().mapToInt(StartupBenchmark.Result::ranks).max().orElse(1);
        List<double[]> empty = List.of(new double[] {lo, r.empty().endToEndMs()}, new double[] {hi, r.empty().endToEndMs()});
        BenchPlot.writePanels(List.of(
                new BenchPlot.Panel("Start-up: run accepted -> all ranks running (ms)", "ranks", List.of(
                        new BenchPlot.Line("first run (service new to the hosts)", firstStartup, true),
                        new BenchPlot.Line("warm (median)", startup, false))),
                new BenchPlot.Panel("End to end: REST start -> SUCCEEDED seen (ms)", "ranks", List.of(
                        new BenchPlot.Line("first run (archive deployed by the start request)", firstE2e, true),
                        new BenchPlot.Line("warm (median)", e2e, false),
                        new BenchPlot.Line("empty workflow, 1 rank (warm median)", empty, true)))), png);
    }
}
