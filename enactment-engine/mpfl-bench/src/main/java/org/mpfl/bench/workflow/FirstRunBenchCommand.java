package org.mpfl.bench.workflow;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.mpfl.bench.BenchPlot;
import org.mpfl.bench.BenchOptions;
import org.mpfl.bench.MachineLoad;
import org.mpfl.bench.PeerRuns;
import org.mpfl.ir.cli.ArgumentSpec;
import org.mpfl.ir.cli.Arguments;
import org.mpfl.ir.cli.CliCommand;
import org.mpfl.ir.cli.CliSettings;
import org.mpfl.ir.cli.UsageException;

/**
 * {@code mpflc bench first-run [--json] [--repeat 5] [--document FILE] [--plot FILE.png] [--with-peers]}: the wall time
 * of {@code bin/mpflc run FILE --local} (default: the README's ring), a new process each time exactly as a
 * user types it, in two variants side by side, alternating run by run so that both see the same
 * machine: {@code plain} (no class-data sharing, full JIT in the client: what the first run was before
 * the CDS archives, {@code MPFL_NO_CDS=1 MPFL_JAVA_OPTS=-XX:TieredStopAtLevel=4}) and {@code default}
 * (what {@code bin/mpflc} does now). Prints per variant the median, minimum and maximum wall time and the
 * 1-minute load average seen before each run, and the ratio default/plain of the medians; with
 * {@code --json} one object {@code {"runs":[{"variant","run","wall_s","load"}…],"median_s":{…},"ratio":x,"cores":n,"cpu_idle":f}}.
 *
 * <p>{@code --with-peers} adds the peers' first run in the same invocation: after each round of the two
 * variants, {@code ../shared/peers/run-startup.sh} times one 4-process ring of MPJ Express (multicore,
 * niodev) and Open MPI (TCP, shared memory) ({@link PeerStartup}), so every variant sees the same machine;
 * their medians join the table, with the ratio of {@code default} to each (the target: {@code default} /
 * {@code mpj-multicore} ≤ 1.0), and the JSON gets {@code "ratio_to_peer":{…}}.
 */
public final class FirstRunBenchCommand implements CliCommand {
    /** The two variants: name → extra environment of the {@code mpflc} process. */
    static final Map<String, Map<String, String>> VARIANTS = variants();

    private static Map<String, Map<String, String>> variants() {
        Map<String, Map<String, String>> m = new LinkedHashMap<>();
        m.put("plain", Map.of("MPFL_NO_CDS", "1", "MPFL_JAVA_OPTS", "-XX:TieredStopAtLevel=4"));
        m.put("default", Map.of());
        return m;
    }

    @Override
    public String name() {
        return "bench first-run";
    }

    @Override
    public String summary() {
        return "[--json] [--repeat 5] [--document FILE] [--plot FILE.png] [--with-peers]  wall time of 'mpflc run FILE --local',"
                + " with and without the CDS archives (and the peers' 4-rank ring start beside it)";
    }

    /** The parsed options. */
    record Options(boolean json, int repeat, Path document, Path plot, boolean withPeers) {
    }

    /** One timed run. */
    record Run(String variant, int index, double wallSeconds, double load) {
    }

    static final ArgumentSpec SPEC = ArgumentSpec.of("bench first-run", "Wall time of 'mpflc run FILE --local' as a new user"
            + " sees it, with and without the class-data-sharing archives (variants plain and default).")
            .value("--repeat", "N", "5", "runs per variant")
            .value("--document", "FILE", "the document run (default samples/ring/ring.mpfl.xml)")
            .flag("--with-peers", "after each round, MPJ Express's and Open MPI's 4-rank ring start (../shared/peers/run-startup.sh) and the ratios")
            .with(BenchOptions::output);

    static Options parse(List<String> args, Path home) throws UsageException {
        Arguments a = SPEC.parse(args);
        Path document = a.has("--document") ? a.path("--document") : home.resolve("samples/ring/ring.mpfl.xml");
        return new Options(a.flag("--json"), a.intAtLeast("--repeat", 1), document, a.path("--plot"), a.flag("--with-peers"));
    }

    /** The project directory: {@code mpfl.home} (set by bin/mpflc), else the nearest directory upwards with bin/mpflc. */
    static Path home() throws UsageException {
        String h = CliSettings.HOME.get();
        if (h != null) {
            return Path.of(h);
        }
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("bin/mpflc"))) {
                return p;
            }
        }
        throw new UsageException("cannot find bin/mpflc: run this through bin/mpflc");
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws Exception {
        SPEC.parse(args); // --help and bad options before looking for the project
        Path home = home();
        Options o = parse(args, home);
        if (!Files.isRegularFile(o.document())) {
            throw new UsageException("no such document: " + o.document());
        }
        List<Run> runs = new ArrayList<>();
        MachineLoad.Window machine = MachineLoad.start();
        for (int i = 0; i < o.repeat(); i++) {
            for (Map.Entry<String, Map<String, String>> v : VARIANTS.entrySet()) {
                double load = MachineLoad.loadAverage();
                double s = timeOnce(home, o.document(), v.getValue(), err);
                runs.add(new Run(v.getKey(), i + 1, s, load));
                err.printf(Locale.ROOT, "[bench first-run] %s #%d: %.2f s (load %.2f)%n", v.getKey(), i + 1, s, load);
            }
            if (o.withPeers()) {
                double load = MachineLoad.loadAverage();
                for (PeerStartup.Time t : PeerStartup.measure(PeerRuns.peersDir(), 1, err)) {
                    runs.add(new Run(t.variant(), i + 1, t.seconds(), load));
                    err.printf(Locale.ROOT, "[bench first-run] %s #%d: %.2f s (load %.2f)%n", t.variant(), i + 1, t.seconds(), load);
                }
            }
        }
        if (o.plot() != null) {
            plot(runs, o.plot());
            err.println("[bench first-run] plot written to " + o.plot());
        }
        double idle = machine.idleFraction();
        if (o.json()) {
            out.println(toJson(runs, idle));
        } else {
            printTable(runs, o.document(), out);
            out.printf(Locale.ROOT, "machine: %d cores, CPU idle %.0f %% over the whole measurement (other jobs' share of the rest)%n",
                    Runtime.getRuntime().availableProcessors(), 100 * idle);
        }
        return 0;
    }

    /** One {@code bin/mpflc run DOC --local}, its output discarded; fails if the run fails. */
    private static double timeOnce(Path home, Path document, Map<String, String> env, PrintStream err) throws Exception {
        File sink = File.createTempFile("mpfl-first-run-", ".log");
        try {
            ProcessBuilder pb = new ProcessBuilder(home.resolve("bin/mpflc").toString(), "run", document.toString(), "--local")
                    .redirectErrorStream(true).redirectOutput(sink);
            pb.environment().remove("MPFL_JAVA_OPTS");
            pb.environment().remove("MPFL_NO_CDS");
            pb.environment().put("TMPDIR", System.getProperty("java.io.tmpdir")); // its temporary files where this JVM keeps its own
            pb.environment().putAll(env);
            long t0 = System.nanoTime();
            Process p = pb.start();
            if (!p.waitFor(10, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new IOException("mpflc run did not end within 10 minutes");
            }
            double s = (System.nanoTime() - t0) / 1e9;
            if (p.exitValue() != 0) {
                throw new IOException("mpflc run failed (" + p.exitValue() + "):\n" + Files.readString(sink.toPath()));
            }
            return s;
        } finally {
            Files.deleteIfExists(sink.toPath());
        }
    }

    /** Every variant measured, MPFL's first, in the order they ran. */
    static List<String> variantsOf(List<Run> runs) {
        return runs.stream().map(Run::variant).distinct().toList();
    }

    /** The ratio of {@code default}'s median to each peer's. */
    static Map<String, Double> ratiosToPeers(Map<String, Double> medians) {
        Map<String, Double> m = new LinkedHashMap<>();
        medians.forEach((v, median) -> {
            if (!VARIANTS.containsKey(v)) {
                m.put(v, Math.round(medians.get("default") / median * 1000) / 1000.0);
            }
        });
        return m;
    }

    static Map<String, Double> medians(List<Run> runs) {
        Map<String, Double> m = new LinkedHashMap<>();
        for (String v : variantsOf(runs)) {
            m.put(v, BenchCommands.median(runs.stream().filter(r -> r.variant().equals(v)).map(Run::wallSeconds).toList()));
        }
        return m;
    }

    static String toJson(List<Run> runs, double cpuIdle) throws Exception {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (Run r : runs) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("variant", r.variant());
            m.put("run", r.index());
            m.put("wall_s", Math.round(r.wallSeconds() * 1000) / 1000.0);
            m.put("load", Double.isNaN(r.load()) ? null : r.load());
            rows.add(m);
        }
        Map<String, Double> med = medians(runs);
        Map<String, Object> all = new LinkedHashMap<>();
        all.put("runs", rows);
        all.put("median_s", med);
        all.put("ratio", med.get("default") / med.get("plain"));
        all.put("cores", Runtime.getRuntime().availableProcessors());
        all.put("cpu_idle", Double.isNaN(cpuIdle) ? null : Math.round(cpuIdle * 1000) / 1000.0);
        Map<String, Double> peers = ratiosToPeers(med);
        if (!peers.isEmpty()) {
            all.put("ratio_to_peer", peers);
        }
        return new ObjectMapper().writeValueAsString(all);
    }

    static void printTable(List<Run> runs, Path document, PrintStream out) {
        out.println("First run: wall time of 'mpflc run " + document.getFileName() + " --local' (s), variants alternating run by run");
        out.printf(Locale.ROOT, "%-13s %5s %9s %7s %7s %13s%n", "variant", "runs", "median_s", "min_s", "max_s", "load (1 min)");
        Map<String, Double> med = medians(runs);
        for (String v : variantsOf(runs)) {
            List<Run> mine = runs.stream().filter(r -> r.variant().equals(v)).toList();
            double min = mine.stream().mapToDouble(Run::wallSeconds).min().orElse(Double.NaN);
            double max = mine.stream().mapToDouble(Run::wallSeconds).max().orElse(Double.NaN);
            double lmin = mine.stream().mapToDouble(Run::load).min().orElse(Double.NaN);
            double lmax = mine.stream().mapToDouble(Run::load).max().orElse(Double.NaN);
            out.printf(Locale.ROOT, "%-13s %5d %9.2f %7.2f %7.2f %6.1f-%-6.1f%n", v, mine.size(), med.get(v), min, max, lmin, lmax);
        }
        out.printf(Locale.ROOT, "default/plain (medians): %.2f; target: default <= 2.0 s%n", med.get("default") / med.get("plain"));
        ratiosToPeers(med).forEach((peer, ratio) -> out.printf(Locale.ROOT, "default/%s (medians): %.2f%s%n", peer, ratio,
                peer.equals("mpj-multicore") ? "; target: <= 1.0 (" + (ratio <= 1.0 ? "met" : "not met") + ")" : ""));
        out.println("plain: MPFL_NO_CDS=1 MPFL_JAVA_OPTS=-XX:TieredStopAtLevel=4 (no class-data sharing, full JIT); default: bin/mpflc as is");
        if (med.size() > VARIANTS.size()) {
            out.println("peers: ../shared/peers/run-startup.sh, one 4-process ring each after every round (same machine, same minute)");
        }
    }

    static void plot(List<Run> runs, Path png) throws IOException {
        List<BenchPlot.Line> lines = new ArrayList<>();
        for (String v : variantsOf(runs)) {
            List<double[]> pts = new ArrayList<>();
            for (Run r : runs) {
                if (r.variant().equals(v)) {
                    pts.add(new double[] {r.index(), r.wallSeconds()});
                }
            }
            lines.add(new BenchPlot.Line(v, pts, !v.equals("default")));
        }
        BenchPlot.writePanels(List.of(new BenchPlot.Panel("mpflc run --local: wall time (s) per run", "run", lines)), png);
    }
}
