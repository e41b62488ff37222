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
import org.mpfl.ir.cli.ArgumentSpec;
import org.mpfl.ir.cli.Arguments;
import org.mpfl.ir.cli.CliCommand;
import org.mpfl.ir.cli.CliSettings;
import org.mpfl.ir.cli.UsageException;

/**
 * {@code mpflc bench first-run [--json] [--repeat 5] [--document FILE] [--plot FILE.png]}: the wall time
 * of {@code bin/mpflc run FILE --local} (default: the README's ring), a new process each time exactly as a
 * user types it, in two variants side by side, alternating run by run so that both see the same
 * machine: {@code plain} (no class-data sharing, full JIT in the client: what the first run was before
 * the CDS archives, {@code MPFL_NO_CDS=1 MPFL_JAVA_OPTS=-XX:TieredStopAtLevel=4}) and {@code default}
 * (what {@code bin/mpflc} does now). Prints per variant the median, minimum and maximum wall time and the
 * 1-minute load average seen before each run, and the ratio default/plain of the medians; with
 * {@code --json} one object {@code {"runs":[{"variant","run","wall_s","load"}…],"median_s":{…},"ratio":x}}.
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
        return "[--json] [--repeat 5] [--document FILE] [--plot FILE.png]  wall time of 'mpflc run FILE --local', with and without the CDS archives";
    }

    /** The parsed options. */
    record Options(boolean json, int repeat, Path document, Path plot) {
    }

    /** One timed run. */
    record Run(String variant, int index, double wallSeconds, double load) {
    }

    static final ArgumentSpec SPEC = ArgumentSpec.of("bench first-run", "Wall time of 'mpflc run FILE --local' as a new user"
            + " sees it, with and without the class-data-sharing archives (variants plain and default).")
            .value("--repeat", "N", "5", "runs per variant")
            .value("--document", "FILE", "the document run (default samples/ring/ring.mpfl.xml)")
            .with(BenchOptions::output);

    static Options parse(List<String> args, Path home) throws UsageException {
        Arguments a = SPEC.parse(args);
        Path document = a.has("--document") ? a.path("--document") : home.resolve("samples/ring/ring.mpfl.xml");
        return new Options(a.flag("--json"), a.intAtLeast("--repeat", 1), document, a.path("--plot"));
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
        for (int i = 0; i < o.repeat(); i++) {
            for (Map.Entry<String, Map<String, String>> v : VARIANTS.entrySet()) {
                double load = loadAverage();
                double s = timeOnce(home, o.document(), v.getValue(), err);
                runs.add(new Run(v.getKey(), i + 1, s, load));
                err.printf(Locale.ROOT, "[bench first-run] %s #%d: %.2f s (load %.2f)%n", v.getKey(), i + 1, s, load);
            }
        }
        if (o.plot() != null) {
            plot(runs, o.plot());
            err.println("[bench first-run] plot written to " + o.plot());
        }
        if (o.json()) {
            out.println(toJson(runs));
        } else {
            printTable(runs, o.document(), out);
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

    private static double loadAverage() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    static Map<String, Double> medians(List<Run> runs) {
        Map<String, Double> m = new LinkedHashMap<>();
        for (String v : VARIANTS.keySet()) {
            m.put(v, BenchCommands.median(runs.stream().filter(r -> r.variant().equals(v)).map(Run::wallSeconds).toList()));
        }
        return m;
    }

    static String toJson(List<Run> runs) throws Exception {
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
        return new ObjectMapper().writeValueAsString(all);
    }

    static void printTable(List<Run> runs, Path document, PrintStream out) {
        out.println("First run: wall time of 'mpflc run " + document.getFileName() + " --local' (s), variants alternating run by run");
        out.printf(Locale.ROOT, "%-8s %5s %9s %7s %7s %13s%n", "variant", "runs", "median_s", "min_s", "max_s", "load (1 min)");
        Map<String, Double> med = medians(runs);
        for (String v : VARIANTS.keySet()) {
            List<Run> mine = runs.stream().filter(r -> r.variant().equals(v)).toList();
            double min = mine.stream().mapToDouble(Run::wallSeconds).min().orElse(Double.NaN);
            double max = mine.stream().mapToDouble(Run::wallSeconds).max().orElse(Double.NaN);
            double lmin = mine.stream().mapToDouble(Run::load).min().orElse(Double.NaN);
            double lmax = mine.stream().mapToDouble(Run::load).max().orElse(Double.NaN);
            out.printf(Locale.ROOT, "%-8s %5d %9.2f %7.2f %7.2f %6.1f-%-6.1f%n", v, mine.size(), med.get(v), min, max, lmin, lmax);
        }
        out.printf(Locale.ROOT, "default/plain (medians): %.2f; target: default <= 2.0 s%n", med.get("default") / med.get("plain"));
        out.println("plain: MPFL_NO_CDS=1 MPFL_JAVA_OPTS=-XX:TieredStopAtLevel=4 (no class-data sharing, full JIT); default: bin/mpflc as is");
    }

    static void plot(List<Run> runs, Path png) throws IOException {
        List<BenchPlot.Line> lines = new ArrayList<>();
        for (String v : VARIANTS.keySet()) {
            List<double[]> pts = new ArrayList<>();
            for (Run r : runs) {
                if (r.variant().equals(v)) {
                    pts.add(new double[] {r.index(), r.wallSeconds()});
                }
            }
            lines.add(new BenchPlot.Line(v, pts, v.equals("plain")));
        }
        BenchPlot.writePanels(List.of(new BenchPlot.Panel("mpflc run --local: wall time (s) per run", "run", lines)), png);
    }
}
