package org.mpfl.runtime.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
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
import org.mpfl.runtime.host.HostMain;

/**
 * {@code mpflc bench p2p [--json] [--sizes 1,10,…] [--transports soap,binary,local] [--scale X]
 * [--host-jvm-arg ARG]… [--save FILE.json] [--plot FILE.png] [--quiet-wait S]}: the point-to-point benchmark
 * ({@link P2pBenchmark}). Prints a table with the ratios to raw sockets and to MPJ Express, or with
 * {@code --json} exactly one JSON object
 * {@code {"pingpong":[{transport,n,bytes,mpiws_us,socket_us}…],"pingstarpong":[{transport,n,bytes,mpiws_us_per_msg,socket_us_per_msg}…]}}.
 * Progress goes to stderr.
 */
public final class BenchCommand implements CliCommand {
    /** Default JVM options of the two benchmark hosts. */
    public static final List<String> DEFAULT_HOST_JVM_ARGS = List.of("-Xmx2g", "-Xms2g", "-XX:+UseParallelGC");

    @Override
    public String name() {
        return "bench";
    }

    @Override
    public String summary() {
        return "benchmarks: p2p [--json] [--sizes ...] [--transports soap,binary,local] | collectives [--json] [--ranks 2,4,8] [--sizes ...] [--transport auto|soap|binary]";
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws Exception {
        HostMain.class.getName(); // keep the host's logging defaults consistent in this JVM
        if (!args.isEmpty() && args.get(0).equals("collectives")) {
            // the collective benchmark lives with the collectives (org.mpfl.runtime.collective.bench)
            return new org.mpfl.runtime.collective.bench.CollectivesBenchCommand().run(args.subList(1, args.size()), out, err);
        }
        if (!args.isEmpty() && !args.get(0).equals("p2p")) {
            // benchmarks of modules above the runtime (the engine's 'bench mediator', 'bench moldyn')
            // are commands named "bench <sub>"; the runtime cannot depend on them, so it looks them up
            for (CliCommand c : java.util.ServiceLoader.load(CliCommand.class)) {
                if (c.name().equals(name() + " " + args.get(0))) {
                    return c.run(args.subList(1, args.size()), out, err);
                }
            }
        }
        if (args.isEmpty() || !args.get(0).equals("p2p")) {
            throw new UsageException("usage: bench p2p [--json] [--sizes 1,10,...] [--transports soap,binary,local]"
                    + " | bench collectives [--json] [--ranks 2,4,8] [--sizes 10,100,300,700] [--transport auto|soap|binary]");
        }
        boolean json = false;
        List<Integer> sizes = new ArrayList<>();
        for (int n : MpjReference.SIZES) {
            sizes.add(n);
        }
        List<String> transports = List.of("soap", "binary", "local");
        double scale = 1.0;
        List<String> jvmArgs = new ArrayList<>();
        Path save = null;
        Path plot = null;
        int quietWait = 0;
        for (int i = 1; i < args.size(); i++) {
            String a = args.get(i);
            switch (a) {
                case "--json" -> json = true;
                case "--sizes" -> {
                    sizes.clear();
                    for (String s : value(args, ++i, a).split(",")) {
                        sizes.add(Integer.parseInt(s.trim()));
                    }
                }
                case "--transports" -> {
                    transports = List.of(value(args, ++i, a).split(","));
                    for (String t : transports) {
                        if (!List.of("soap", "binary", "local").contains(t)) {
                            throw new UsageException("unknown transport " + t + " (soap, binary, local)");
                        }
                    }
                }
                case "--scale" -> scale = Double.parseDouble(value(args, ++i, a));
                case "--host-jvm-arg" -> jvmArgs.add(value(args, ++i, a));
                case "--save" -> save = Path.of(value(args, ++i, a));
                case "--plot" -> plot = Path.of(value(args, ++i, a));
                case "--quiet-wait" -> quietWait = Integer.parseInt(value(args, ++i, a));
                default -> throw new UsageException("unknown option " + a);
            }
        }
        if (jvmArgs.isEmpty()) {
            jvmArgs.addAll(DEFAULT_HOST_JVM_ARGS);
        }
        P2pBenchmark.Results r = new P2pBenchmark(sizes, transports, scale, jvmArgs, err).quietWait(quietWait).run();
        String text = toJson(r);
        if (save != null) {
            Files.writeString(save, text + "\n");
        }
        if (plot != null) {
            BenchPlot.write(r, plot);
            err.println("[bench] plot written to " + plot);
        }
        if (json) {
            out.println(text);
        } else {
            printTables(r, out);
        }
        boolean failed = r.pingpong().stream().anyMatch(p -> Double.isNaN(p.mpiwsUs()));
        return failed ? 1 : 0;
    }

    private static String value(List<String> args, int i, String option) throws UsageException {
        if (i >= args.size()) {
            throw new UsageException(option + " needs a value");
        }
        return args.get(i);
    }

    /** The one JSON object of {@code --json}. */
    static String toJson(P2pBenchmark.Results r) throws Exception {
        List<Map<String, Object>> pp = new ArrayList<>();
        for (P2pBenchmark.PingPong p : r.pingpong()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("transport", p.transport());
            m.put("n", p.n());
            m.put("bytes", p.bytes());
            m.put("mpiws_us", round(p.mpiwsUs()));
            m.put("socket_us", round(p.socketUs()));
            pp.add(m);
        }
        List<Map<String, Object>> psp = new ArrayList<>();
        for (P2pBenchmark.PingStarPong p : r.pingstarpong()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("transport", p.transport());
            m.put("n", p.n());
            m.put("bytes", p.bytes());
            m.put("mpiws_us_per_msg", round(p.mpiwsUsPerMsg()));
            m.put("socket_us_per_msg", round(p.socketUsPerMsg()));
            psp.add(m);
        }
        Map<String, Object> all = new LinkedHashMap<>();
        all.put("pingpong", pp);
        all.put("pingstarpong", psp);
        return new ObjectMapper().disable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(all);
    }

    /** Reads the JSON form back (for the plot and the docs). */
    @SuppressWarnings("unchecked")
    static P2pBenchmark.Results fromJson(String text) throws Exception {
        Map<String, Object> all = new ObjectMapper().readValue(text, Map.class);
        List<P2pBenchmark.PingPong> pp = new ArrayList<>();
        for (Map<String, Object> m : (List<Map<String, Object>>) all.get("pingpong")) {
            pp.add(new P2pBenchmark.PingPong((String) m.get("transport"), ((Number) m.get("n")).intValue(),
                    ((Number) m.get("bytes")).longValue(), num(m.get("mpiws_us")), num(m.get("socket_us"))));
        }
        List<P2pBenchmark.PingStarPong> psp = new ArrayList<>();
        for (Map<String, Object> m : (List<Map<String, Object>>) all.get("pingstarpong")) {
            psp.add(new P2pBenchmark.PingStarPong((String) m.get("transport"), ((Number) m.get("n")).intValue(),
                    ((Number) m.get("bytes")).longValue(), num(m.get("mpiws_us_per_msg")), num(m.get("socket_us_per_msg"))));
        }
        return new P2pBenchmark.Results(pp, psp);
    }

    private static double num(Object o) {
        return o == null ? Double.NaN : ((Number) o).doubleValue();
    }

    private static Double round(double v) {
        return Double.isNaN(v) ? null : Math.round(v * 10) / 10.0;
    }

    static void printTables(P2pBenchmark.Results r, PrintStream out) {
        out.println("PingPong: median round trip (us) for N x N doubles");
        out.printf(Locale.ROOT, "%-8s %6s %10s %11s %10s %8s %10s %8s%n", "transport", "N", "bytes", "mpiws_us",
                "socket_us", "x_sock", "mpj_us", "x_mpj");
        for (P2pBenchmark.PingPong p : r.pingpong()) {
            double mpj = p.transport().equals("local") ? MpjReference.multicorePingPong(p.n()) : MpjReference.niodevPingPong(p.n());
            out.printf(Locale.ROOT, "%-8s %6d %10d %11.1f %10.1f %8.2f %10.1f %8.2f%n", p.transport(), p.n(), p.bytes(),
                    p.mpiwsUs(), p.socketUs(), p.mpiwsUs() / p.socketUs(), mpj, p.mpiwsUs() / mpj);
        }
        out.println();
        out.println("Ping*Pong: time per message (us) = total of 10 sends + 1 reply / 11");
        out.printf(Locale.ROOT, "%-8s %6s %10s %11s %10s %8s %10s %8s%n", "transport", "N", "bytes", "mpiws_us",
                "socket_us", "x_sock", "mpj_us", "x_mpj");
        for (P2pBenchmark.PingStarPong p : r.pingstarpong()) {
            double mpj = p.transport().equals("local") ? MpjReference.multicorePingStarPong(p.n())
                    : MpjReference.niodevPingStarPong(p.n());
            out.printf(Locale.ROOT, "%-8s %6d %10d %11.1f %10.1f %8.2f %10.1f %8.2f%n", p.transport(), p.n(), p.bytes(),
                    p.mpiwsUsPerMsg(), p.socketUsPerMsg(), p.mpiwsUsPerMsg() / p.socketUsPerMsg(), mpj,
                    p.mpiwsUsPerMsg() / mpj);
        }
        out.println();
        out.println("mpj_us: MPJ Express 0.44 double[] (niodev for soap/binary, multicore for local), peers/results/SUMMARY.md");
    }
}
