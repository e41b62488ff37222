package org.mpfl.runtime.collective.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.mpfl.compiler.cli.CliCommand;
import org.mpfl.compiler.cli.UsageException;
import org.mpfl.runtime.collective.Collectives;

/**
 * {@code mpflc bench collectives [--json] [--ranks 2,4,8] [--sizes 10,100,300,700]
 * [--transport auto|soap|binary[,...]] [--ops bcast,gather,allreduce,barrier] [--scale X]
 * [--quiet-wait SECONDS] [--host-jvm-arg ARG]... [--save FILE.json] [--plot FILE.png] [--from FILE.json]}: median of the
 * max-over-ranks time of barrier, broadcast, gather and allreduce for every algorithm and for
 * {@code auto}, with ranks spread round-robin over two local service hosts
 * ({@link CollectivesBenchmark}). Prints a table with the ratio to MPJ Express niodev, or with
 * {@code --json} one object {@code {"results":[{"op","algorithm","transport","p","n","bytes","median_us"}...]}}.
 * Progress goes to stderr. {@code --from} re-reads saved results instead of measuring.
 *
 * <p>Reached as {@code mpflc bench collectives ...} (the {@code bench} command hands the arguments
 * after {@code collectives} to {@link #run}).
 */
public final class CollectivesBenchCommand implements CliCommand {
    static final List<String> DEFAULT_HOST_JVM_ARGS = List.of("-Xmx2g", "-Xms2g", "-XX:+UseParallelGC");
    static final List<String> OPS = List.of("barrier", "bcast", "gather", "allreduce");

    @Override
    public String name() {
        return "collectives";
    }

    @Override
    public String summary() {
        return "collectives [--json] [--ranks 2,4,8] [--sizes 10,100,300,700] [--transport auto|soap|binary]";
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws Exception {
        boolean json = false;
        List<Integer> ranks = List.of(2, 4, 8);
        List<Integer> sizes = List.of(10, 100, 300, 700);
        List<String> transports = List.of("auto");
        List<String> ops = OPS;
        double scale = 1.0;
        List<String> jvmArgs = new ArrayList<>();
        Path save = null;
        Path plot = null;
        Path from = null;
        int quietWait = 0;
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            switch (a) {
                case "--json" -> json = true;
                case "--ranks" -> ranks = ints(value(args, ++i, a));
                case "--sizes" -> sizes = ints(value(args, ++i, a));
                case "--transport", "--transports" -> {
                    transports = List.of(value(args, ++i, a).split(","));
                    for (String t : transports) {
                        if (!List.of("auto", "soap", "binary").contains(t)) {
                            throw new UsageException("unknown transport " + t + " (auto, soap, binary)");
                        }
                    }
                }
                case "--ops" -> {
                    ops = List.of(value(args, ++i, a).split(","));
                    for (String o : ops) {
                        if (!OPS.contains(o)) {
                            throw new UsageException("unknown operation " + o + " (" + String.join(", ", OPS) + ")");
                        }
                    }
                }
                case "--quiet-wait" -> quietWait = Integer.parseInt(value(args, ++i, a));
                case "--scale" -> scale = Double.parseDouble(value(args, ++i, a));
                case "--host-jvm-arg" -> jvmArgs.add(value(args, ++i, a));
                case "--save" -> save = Path.of(value(args, ++i, a));
                case "--plot" -> plot = Path.of(value(args, ++i, a));
                case "--from" -> from = Path.of(value(args, ++i, a));
                default -> throw new UsageException("unknown option " + a + "; usage: bench " + summary());
            }
        }
        for (int p : ranks) {
            if (p < 1 || p > 64) {
                throw new UsageException("--ranks: " + p + " is out of range 1..64");
            }
        }
        if (jvmArgs.isEmpty()) {
            jvmArgs.addAll(DEFAULT_HOST_JVM_ARGS);
        }
        List<CollectivesBenchmark.Result> results;
        if (from != null) {
            results = fromJson(Files.readString(from));
        } else {
            Map<String, List<String>> cases = new LinkedHashMap<>();
            for (String op : ops) {
                // auto last: measured after the named algorithms, it is not the one that meets a cold path
                List<String> algs = new ArrayList<>(Collectives.algorithms(op));
                algs.add("auto");
                cases.put(op, algs);
            }
            results = new CollectivesBenchmark(ranks, sizes, transports, cases, scale, jvmArgs, err)
                    .quietWait(quietWait).run();
        }
        String text = toJson(results);
        if (save != null) {
            Files.writeString(save, text + "\n");
            err.println("[bench] results saved to " + save);
        }
        if (plot != null) {
            CollectivesPlot.write(results, plot);
            err.println("[bench] plot written to " + plot);
        }
        if (json) {
            out.println(text);
        } else {
            printTable(results, out);
        }
        return 0;
    }

    private static List<Integer> ints(String csv) {
        List<Integer> out = new ArrayList<>();
        for (String s : csv.split(",")) {
            out.add(Integer.parseInt(s.trim()));
        }
        return out;
    }

    private static String value(List<String> args, int i, String option) throws UsageException {
        if (i >= args.size()) {
            throw new UsageException(option + " needs a value");
        }
        return args.get(i);
    }

    static String toJson(List<CollectivesBenchmark.Result> results) throws Exception {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (CollectivesBenchmark.Result r : results) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("op", r.op());
            m.put("algorithm", r.algorithm());
            m.put("transport", r.transport());
            m.put("p", r.p());
            m.put("n", r.n());
            m.put("bytes", r.bytes());
            m.put("median_us", round(r.medianUs()));
            m.put("min_us", round(r.minUs()));
            m.put("mean_us", round(r.meanUs()));
            m.put("iterations", r.iterations());
            rows.add(m);
        }
        return new ObjectMapper().writeValueAsString(Map.of("results", rows));
    }

    @SuppressWarnings("unchecked")
    static List<CollectivesBenchmark.Result> fromJson(String text) throws Exception {
        Map<String, Object> all = new ObjectMapper().readValue(text, Map.class);
        List<CollectivesBenchmark.Result> out = new ArrayList<>();
        for (Map<String, Object> m : (List<Map<String, Object>>) all.get("results")) {
            out.add(new CollectivesBenchmark.Result((String) m.get("op"), (String) m.get("algorithm"),
                    (String) m.get("transport"), ((Number) m.get("p")).intValue(), ((Number) m.get("n")).intValue(),
                    ((Number) m.get("bytes")).longValue(), num(m.get("median_us")), num(m.get("min_us")),
                    num(m.get("mean_us")), m.get("iterations") == null ? 0 : ((Number) m.get("iterations")).intValue()));
        }
        return out;
    }

    private static double num(Object o) {
        return o == null ? Double.NaN : ((Number) o).doubleValue();
    }

    private static Double round(double v) {
        return Double.isNaN(v) ? null : Math.round(v * 10) / 10.0;
    }

    static void printTable(List<CollectivesBenchmark.Result> results, PrintStream out) {
        out.println("Collectives: median over iterations of the max-over-ranks time (us), N x N doubles, root 0");
        out.printf(Locale.ROOT, "%-9s %-24s %-9s %3s %5s %10s %11s %11s %7s%n", "op", "algorithm", "transport", "p", "N",
                "bytes", "median_us", "mpj_us", "x_mpj");
        for (CollectivesBenchmark.Result r : results) {
            double mpj = MpjCollectivesReference.niodev(r.op(), r.p(), r.n());
            out.printf(Locale.ROOT, "%-9s %-24s %-9s %3d %5d %10d %11.1f %11.1f %7.2f%n", r.op(), r.algorithm(),
                    r.transport(), r.p(), r.n(), r.bytes(), r.medianUs(), mpj, r.medianUs() / mpj);
        }
        out.println();
        out.println("mpj_us: MPJ Express 0.44 niodev, double[], same kind of machine (shared/peers/results/mpj-collectives.csv)");
    }
}
