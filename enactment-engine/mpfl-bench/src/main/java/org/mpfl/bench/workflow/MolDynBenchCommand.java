package org.mpfl.bench.workflow;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintStream;
import java.nio.file.Files;
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
import org.mpfl.ir.cli.CliSettings;
import org.mpfl.ir.cli.UsageException;

/**
 * {@code mpflc bench moldyn [--json] [--mm 8,13] [--ranks 1,2,4] [--algorithms auto,serial,binomial]
 * [--moves 50] [--hosts 2] [--capacity N] [--host-jvm-arg ARG]… [--document FILE] [--run-timeout S] [--warmup-moves 5]
 * [--warmup-seconds 10] [--repeat 3] [--plot FILE.png]
 * [--with-mpj [--mpj-results DIR]
 * [--quiet-wait S]]}: the MolDyn
 * sample through the engine ({@link MolDynBenchmark}) — total time, communication time and share, ek and
 * its deviation from the JGF reference, speed-up over one rank, per allreduce algorithm; each case run
 * {@code --repeat} times and its median run reported with the range — with MPJ
 * Express side by side: run in the same invocation with {@code --with-mpj} where it is installed,
 * otherwise the peers' committed results. {@code --json}:
 * {@code {"results":[{"mm","p","algorithm","particles","total_s","comm_s","comm_share","ek","ek_deviation","validation","speedup","run_ms",
 * "repeats","total_s_min","total_s_max","failed_runs"}…], "mpj":{"source","rows":[{"device","p","mm","total_s","comm_s","ek","ek_deviation","validation"}…]}}}.
 */
public final class MolDynBenchCommand implements CliCommand {
    @Override
    public String name() {
        return "bench moldyn";
    }

    @Override
    public String summary() {
        return "[--json] [--mm 8,13] [--ranks 1,2,4] [--algorithms auto,serial,binomial] [--repeat 3] [--with-mpj [--peers DIR]] [--plot FILE.png]  MolDyn sample: speed-up, comm share, ek";
    }

    /** The parsed options. */
    record Options(boolean json, List<Integer> sizes, List<Integer> ranks, List<String> algorithms, int moves, int hosts,
                   int capacity, List<String> hostJvmArgs, Path document, boolean withMpj, Path mpjResults, int quietWait,
                   int runTimeoutS, Path plot, int warmupMoves, Path peersDir, int repeat, int warmupSeconds) {
        /** The peers' directory: {@code --peers}, else {@link MpjMolDyn#peersDir()}. */
        Path peers() {
            return peersDir != null ? peersDir : MpjMolDyn.peersDir();
        }
    }

    static final ArgumentSpec SPEC = ArgumentSpec.of("bench moldyn", "The MolDyn sample: speed-up, communication share and"
            + " the kinetic energy check per size, rank count and broadcast algorithm, beside MPJ Express.")
            .value("--mm", "8,13", "8,13", "problem sizes")
            .value("--ranks", "1,2,4", "1,2,4", "rank counts")
            .value("--algorithms", "auto,serial,binomial", "auto,serial,binomial", "the broadcast algorithms compared")
            .value("--moves", "N", "50", "moves per run")
            .value("--hosts", "N", "2", "local service hosts")
            .value("--capacity", "N", "0", "each host's capacity (0: its own)")
            .with(s -> BenchOptions.hostJvmArgs(s, BenchCommands.DEFAULT_HOST_JVM_ARGS))
            .value("--document", "FILE", "the document (default samples/moldyn/moldyn.mpfl.xml)")
            .value("--run-timeout", "S", "1800", "bound of one run")
            .value("--warmup-moves", "N", "5", "moves of the untimed warm-up run")
            .value("--warmup-seconds", "S", "10", "untimed warm-up per case")
            .value("--repeat", "N", "3", "measured runs per case (the median is reported)")
            .flag("--with-mpj", "run MPJ Express's MolDyn in this invocation where it is installed")
            .value("--mpj-results", "DIR", "MPJ Express's stored results to use instead")
            .value("--peers", "DIR", "the peers' directory (default $MPFL_PEERS, else ../shared/peers)")
            .value("--quiet-wait", "S", "120", "seconds each MPJ Express run may wait for an idle machine")
            .with(BenchOptions::output);

    static Options parse(List<String> args) throws UsageException {
        Arguments a = SPEC.parse(args);
        List<String> algorithms = new ArrayList<>();
        for (String s : a.value("--algorithms").split(",")) {
            if (!s.isBlank()) {
                algorithms.add(s.trim());
            }
        }
        if (algorithms.isEmpty()) {
            throw new UsageException("--algorithms needs at least one name");
        }
        Path document = a.has("--document") ? a.path("--document")
                : Path.of(CliSettings.HOME.get("."), "samples", "moldyn", "moldyn.mpfl.xml");
        List<String> hostJvmArgs = BenchOptions.hostJvmArgs(a, BenchCommands.DEFAULT_HOST_JVM_ARGS);
        return new Options(a.flag("--json"), a.intList("--mm", 1), a.intList("--ranks", 1), List.copyOf(algorithms),
                a.intAtLeast("--moves", 1), a.intAtLeast("--hosts", 1), a.intAtLeast("--capacity", 0), hostJvmArgs,
                document, a.flag("--with-mpj"), a.path("--mpj-results"), a.intAtLeast("--quiet-wait", 0),
                a.intAtLeast("--run-timeout", 1), a.path("--plot"), a.intAtLeast("--warmup-moves", 0), a.path("--peers"),
                a.intAtLeast("--repeat", 1), a.intAtLeast("--warmup-seconds", 0));
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws Exception {
        Options o = parse(args);
        if (!Files.isRegularFile(o.document())) {
            throw new UsageException("no MolDyn document at " + o.document() + " (give --document FILE)");
        }
        // say it before the benchmark runs, not after
        if (o.withMpj() && MpjMolDyn.installed() && !Files.isRegularFile(o.peers().resolve("run-mpj-moldyn.sh"))) {
            throw new UsageException("no " + o.peers().resolve("run-mpj-moldyn.sh") + " (give the peers' directory with --peers DIR)");
        }
        List<MolDynBenchmark.Result> results = new MolDynBenchmark(o.document(), o.sizes(), o.ranks(), o.algorithms(), o.moves(),
                o.hosts(), o.capacity(), o.hostJvmArgs(), err).runTimeout(java.time.Duration.ofSeconds(o.runTimeoutS())).warmupMoves(o.warmupMoves())
                .warmupSeconds(o.warmupSeconds())
                .repeats(o.repeat()).run();
        List<MpjMolDyn.Row> mpj;
        String mpjSource;
        if (o.withMpj() && MpjMolDyn.installed()) {
            Path dir = o.mpjResults() != null ? o.mpjResults() : Files.createTempDirectory("mpfl-mpj-results-");
            mpj = MpjMolDyn.run(o.peers(), o.sizes(), o.ranks(), dir, o.quietWait(), err);
            mpjSource = "measured in this run (" + dir.resolve("mpj-moldyn.csv") + ")";
        } else {
            if (o.withMpj()) {
                err.println("[bench moldyn] MPJ Express is not installed (" + MpjMolDyn.MPJ_JAR + " missing): showing the peers' committed results");
            }
            mpj = MpjMolDyn.committed(o.peers());
            mpjSource = "peers' committed results (" + o.peers().resolve("results/mpj-moldyn.csv") + ", idle machine)";
        }
        if (o.plot() != null) {
            plot(results, mpj, o.plot());
            err.println("[bench moldyn] plot written to " + o.plot());
        }
        if (o.json()) {
            out.println(toJson(results, mpj, mpjSource));
        } else {
            printTables(results, mpj, mpjSource, out);
        }
        boolean failed = results.stream().anyMatch(r -> r.validation().equals("FAIL"));
        return failed ? 1 : 0;
    }

    /**
     * Two panels (the runtime's {@link BenchPlot}): speed-up over one rank against p, a line per size and
     * reduction variant; total time against p with MPJ Express dashed.
     */
    static void plot(List<MolDynBenchmark.Result> results, List<MpjMolDyn.Row> mpj, Path png) throws java.io.IOException {
        Map<String, List<double[]>> speedup = new LinkedHashMap<>();
        Map<String, List<double[]>> total = new LinkedHashMap<>();
        for (MolDynBenchmark.Result r : results) {
            List<String> variants = r.p() == 1
                    ? results.stream().filter(x -> x.mm() == r.mm() && x.p() > 1).map(MolDynBenchmark.Result::algorithm).distinct().toList()
                    : List.of(r.algorithm());
            for (String v : variants.isEmpty() ? List.of("-") : variants) {
                String key = "MPFL mm=" + r.mm() + " " + v;
                speedup.computeIfAbsent(key, k -> new ArrayList<>()).add(new double[] {r.p(), r.speedup()});
                total.computeIfAbsent(key, k -> new ArrayList<>()).add(new double[] {r.p(), r.totalS()});
            }
        }
        List<BenchPlot.Line> left = new ArrayList<>();
        speedup.forEach((k, v) -> left.add(new BenchPlot.Line(k, v, false)));
        List<BenchPlot.Line> right = new ArrayList<>();
        total.forEach((k, v) -> right.add(new BenchPlot.Line(k, v, false)));
        Map<String, List<double[]>> peer = new LinkedHashMap<>();
        for (MpjMolDyn.Row m : mpj) {
            if (results.stream().anyMatch(r -> r.mm() == m.mm())) {
                peer.computeIfAbsent("MPJ Express " + m.device() + " mm=" + m.mm(), k -> new ArrayList<>())
                        .add(new double[] {m.p(), m.totalS()});
            }
        }
        peer.forEach((k, v) -> right.add(new BenchPlot.Line(k, v, true)));
        BenchPlot.writePanels(List.of(new BenchPlot.Panel("MolDyn speed-up over 1 rank", "ranks p", left),
                new BenchPlot.Panel("MolDyn total time of the moves (s)", "ranks p", right)), png);
    }

    static String toJson(List<MolDynBenchmark.Result> results, List<MpjMolDyn.Row> mpj, String mpjSource) throws Exception {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (MolDynBenchmark.Result r : results) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("mm", r.mm());
            m.put("p", r.p());
            m.put("algorithm", r.algorithm());
            m.put("particles", r.particles());
            m.put("total_s", finite(r.totalS()));
            m.put("comm_s", finite(r.commS()));
            m.put("comm_share", finite(r.commShare()));
            m.put("ek", finite(r.ek()));
            m.put("ek_deviation", finite(r.deviation()));
            m.put("validation", r.validation());
            m.put("speedup", finite(r.speedup()));
            m.put("run_ms", finite(r.runMs()));
            m.put("repeats", r.runs());
            m.put("total_s_min", finite(r.minS()));
            m.put("total_s_max", finite(r.maxS()));
            m.put("failed_runs", r.failedRuns());
            rows.add(m);
        }
        List<Map<String, Object>> peer = new ArrayList<>();
        for (MpjMolDyn.Row r : mpj) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("device", r.device());
            m.put("p", r.p());
            m.put("mm", r.mm());
            m.put("total_s", r.totalS());
            m.put("comm_s", r.commS());
            m.put("ek", r.ek());
            m.put("ek_deviation", r.deviation());
            m.put("validation", r.validation());
            peer.add(m);
        }
        Map<String, Object> mpjPart = new LinkedHashMap<>();
        mpjPart.put("source", mpjSource);
        mpjPart.put("rows", peer);
        Map<String, Object> all = new LinkedHashMap<>();
        all.put("results", rows);
        all.put("mpj", mpjPart);
        return new ObjectMapper().writeValueAsString(all);
    }

    private static Double finite(double v) {
        return Double.isFinite(v) ? v : null;
    }

    static void printTables(List<MolDynBenchmark.Result> results, List<MpjMolDyn.Row> mpj, String mpjSource, PrintStream out) {
        out.println("MolDyn through the engine (total_s: the moves, barrier to barrier; comm_s: rank 0 inside the force reduction)");
        out.printf(Locale.ROOT, "%4s %3s %-20s %7s %9s %13s %9s %6s %8s %-20s %10s %-15s %8s %8s%n", "mm", "p", "allreduce", "N",
                "total_s", "range", "comm_s", "comm%", "speedup", "ek", "|ek-ref|", "validation", "mpj_nio", "mpj_mc");
        for (MolDynBenchmark.Result r : results) {
            out.printf(Locale.ROOT, "%4d %3d %-20s %7d %9.3f %13s %9.3f %6.1f %8.2f %-20s %10s %-15s %8s %8s%n", r.mm(), r.p(),
                    r.algorithm(), r.particles(), r.totalS(), String.format(Locale.ROOT, "%.2f-%.2f", r.minS(), r.maxS()),
                    r.commS(), 100 * r.commShare(), r.speedup(), r.ek(),
                    Double.isNaN(r.deviation()) ? "-" : String.format(Locale.ROOT, "%.2e", r.deviation()),
                    r.validation(), peer(mpj, "niodev", r), peer(mpj, "multicore", r));
        }
        if (!results.isEmpty()) {
            out.printf(Locale.ROOT, "each row: the run with the median total_s of %d (range: fastest-slowest; p = 1: all variants' one-rank"
                    + " runs, the speed-up's base); ek of that run, validation of all of them%n", results.get(results.size() - 1).runs());
        }
        out.println("mpj_nio / mpj_mc: MPJ Express 0.44 total_s, niodev / multicore, " + mpjSource);
        out.println();
        for (String line : targets(results)) {
            out.println(line);
        }
    }

    /** The targets, judged on these results (only those the results cover). */
    static List<String> targets(List<MolDynBenchmark.Result> results) {
        List<String> lines = new ArrayList<>();
        List<MolDynBenchmark.Result> validated = results.stream()
                .filter(r -> (r.mm() == 8 || r.mm() == 13) && r.p() <= 4 && !r.validation().equals("no_reference")).toList();
        if (!validated.isEmpty()) {
            int failed = validated.stream().mapToInt(MolDynBenchmark.Result::failedRuns).sum();
            int runs = validated.stream().mapToInt(MolDynBenchmark.Result::runs).sum();
            lines.add("target ek reproduced (1e-12 abs or 1e-8 rel): " + (failed == 0 ? "met" : "NOT met") + " in "
                    + (runs - failed) + " of " + runs + " runs");
        }
        for (MolDynBenchmark.Result r : results) {
            if (r.mm() == 13 && r.p() == 2) {
                lines.add(String.format(Locale.ROOT, "target mm=13 speed-up >= 1.8 on 2 ranks (%s): %.2f %s; comm <= 15 %%: %.1f %% %s",
                        r.algorithm(), r.speedup(), r.speedup() >= 1.8 ? "met" : "NOT met", 100 * r.commShare(),
                        r.commShare() <= 0.15 ? "met" : "NOT met"));
            }
        }
        return lines;
    }

    private static String peer(List<MpjMolDyn.Row> mpj, String device, MolDynBenchmark.Result r) {
        for (MpjMolDyn.Row m : mpj) {
            if (m.device().equals(device) && m.p() == r.p() && m.mm() == r.mm()) {
                return String.format(Locale.ROOT, "%.3f", m.totalS());
            }
        }
        return "-";
    }
}
