package org.mpfl.bench;

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
import org.mpfl.ir.cli.ArgumentSpec;
import org.mpfl.ir.cli.Arguments;
import org.mpfl.ir.cli.CliCommand;
import org.mpfl.ir.cli.HelpRequested;
import org.mpfl.ir.cli.UsageException;
import org.mpfl.runtime.host.HostMain;

/**
 * {@code mpflc bench p2p [--json] [--sizes 1,10,…] [--transports soap,binary,local] [--scale X]
 * [--with-peers | --with-mpj | --with-ompi] [--peers DIR] [--host-jvm-arg ARG]… [--save FILE.json]
 * [--plot FILE.png] [--quiet-wait S]}: the point-to-point benchmark ({@link P2pBenchmark}). Prints a
 * table with the ratios to raw sockets (measured in the same run), to MPJ Express and to Open MPI,
 * or with {@code --json} exactly one JSON object
 * {@code {"pingpong":[{transport,n,bytes,mpiws_us,socket_us,mpj_mode,mpj_us,ompi_mode,ompi_us}…],
 * "pingstarpong":[{transport,n,bytes,mpiws_us_per_msg,socket_us_per_msg,mpj_mode,mpj_us_per_msg,…}…],"peers":{…}}}.
 * With {@code --with-mpj}/{@code --with-ompi}/{@code --with-peers} the peers' own benchmark
 * scripts run first in the same invocation where the peer is installed ({@link PeerRuns});
 * otherwise, and for a peer that is not installed, the peers' stored results are shown, labelled
 * so. Progress goes to stderr. {@code --from FILE.json} tabulates (and with {@code --plot} draws) a
 * run saved with {@code --save} instead of measuring, with the peers' numbers it was compared with.
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
        return "benchmarks: p2p [--json] [--sizes ...] [--transports soap,binary,local] [--with-peers|--with-mpj|--with-ompi]"
                + " | collectives [--json] [--ranks 2,4,8] [--sizes ...] [--transport auto|soap|binary] [--with-peers|--with-mpj|--with-ompi]";
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws Exception {
        HostMain.class.getName(); // keep the host's logging defaults consistent in this JVM
        if (!args.isEmpty() && !args.get(0).equals("p2p")) {
            // the other benchmarks ('bench collectives', 'bench mediator', 'bench moldyn', …) are
            // commands named "bench <sub>", found like every command, so this one depends on none of them
            for (CliCommand c : java.util.ServiceLoader.load(CliCommand.class)) {
                if (c.name().equals(name() + " " + args.get(0))) {
                    return c.run(args.subList(1, args.size()), out, err);
                }
            }
        }
        if (args.isEmpty() || !args.get(0).equals("p2p")) {
            String usage = usage();
            if (!args.isEmpty() && (args.get(0).equals("--help") || args.get(0).equals("-h"))) {
                throw new HelpRequested(usage);
            }
            throw new UsageException((args.isEmpty() ? "which benchmark?" : "unknown benchmark '" + args.get(0) + "'") + "\n" + usage);
        }
        Options o = parse(args.subList(1, args.size()));
        P2pBenchmark.Results r;
        PeerResults peers;
        if (o.from() != null) {
            // a saved run, tabulated and plotted again, with the peers' numbers it was compared with
            Saved saved = fromJson(Files.readString(o.from()));
            r = saved.results();
            peers = PeerRuns.ofSaved(saved.peers(), o.peers().dir());
        } else {
            peers = PeerRuns.compare(o.peers(), peerRequest(o), err);
            r = new P2pBenchmark(o.sizes(), o.transports(), o.scale(), o.hostJvmArgs(), err)
                    .quietWait(o.quietWait()).run();
        }
        String text = toJson(r, peers);
        if (o.save() != null) {
            Files.writeString(o.save(), text + "\n");
        }
        if (o.plot() != null) {
            plot(r, peers, o.plot());
            err.println("[bench] plot written to " + o.plot());
        }
        if (o.json()) {
            out.println(text);
        } else {
            printTables(r, peers, out);
        }
        boolean failed = r.pingpong().stream().anyMatch(p -> Double.isNaN(p.mpiwsUs()));
        return failed ? 1 : 0;
    }

    /** The sizes of the issue (and of the peers' benchmark). */
    public static final List<Integer> SIZES = List.of(1, 10, 50, 100, 160, 200, 300, 500, 1000, 2000);
    static final List<String> TRANSPORTS = List.of("soap", "binary", "local");

    /** The options of {@code bench p2p}. */
    record Options(boolean json, List<Integer> sizes, List<String> transports, double scale, List<String> hostJvmArgs,
                   Path save, Path plot, int quietWait, PeerRuns.Options peers, Path from) {
    }

    /** The options of {@code bench p2p}. */
    static final ArgumentSpec SPEC = ArgumentSpec.of("bench p2p", "The point-to-point benchmark: PingPong and Ping*Pong over"
            + " each transport, with the ratios to raw sockets (measured in the same run), MPJ Express and Open MPI.")
            .value("--sizes", "1,10,...", SIZES.stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(",")),
                    "message sizes (doubles)")
            .value("--transports", "soap,binary,local", String.join(",", TRANSPORTS), "the transports measured")
            .with(BenchOptions::measuredAgainstPeers);

    /** Parses the arguments after {@code p2p}. */
    static Options parse(List<String> args) throws UsageException {
        Arguments a = SPEC.parse(args);
        Path from = a.path("--from");
        if (from != null && !Files.isRegularFile(from)) {
            throw new UsageException("--from " + from + ": no such file (a JSON saved with --save)");
        }
        PeerRuns.Options peers = PeerRuns.Options.of(a);
        return new Options(a.flag("--json"), a.intList("--sizes", 0), a.choices("--transports", TRANSPORTS), a.number("--scale"),
                BenchOptions.hostJvmArgs(a, DEFAULT_HOST_JVM_ARGS), a.path("--save"), a.path("--plot"), peers.quietWait(), peers,
                from);
    }

    /** The benchmarks: this command's p2p and every command named "bench SUB". */
    static String usage() {
        StringBuilder b = new StringBuilder("usage: mpflc bench BENCHMARK [OPTIONS]  ('mpflc bench BENCHMARK --help' for its options)\n");
        b.append(String.format("  %-12s %s%n", "p2p", "point-to-point: PingPong and Ping*Pong per transport, vs sockets, MPJ Express, Open MPI"));
        List<CliCommand> subs = new ArrayList<>();
        java.util.ServiceLoader.load(CliCommand.class).forEach(subs::add);
        subs.sort(java.util.Comparator.comparing(CliCommand::name));
        for (CliCommand c : subs) {
            if (c.name().startsWith("bench ")) {
                b.append(String.format("  %-12s %s%n", c.name().substring("bench ".length()), c.summary()));
            }
        }
        return b.toString();
    }

    /** What the peers' scripts run for these options: PingPong and Ping*Pong at p = 2, the devices the transports are compared with. */
    static PeerRuns.Request peerRequest(Options o) {
        List<String> devices = new ArrayList<>();
        List<String> modes = new ArrayList<>();
        for (String t : o.transports()) {
            if (!devices.contains(mpj(t).mode())) {
                devices.add(mpj(t).mode());
            }
            if (!modes.contains(ompi(t).mode())) {
                modes.add(ompi(t).mode());
            }
        }
        return new PeerRuns.Request("p2p", List.of(2), o.scale(), devices, modes);
    }

    /** The MPJ Express device a transport is compared with: multicore (threads in one JVM) for {@code local}, niodev (TCP) otherwise. */
    static PeerResults.Peer mpj(String transport) {
        return new PeerResults.Peer("mpj", transport.equals("local") ? "multicore" : "niodev");
    }

    /** The Open MPI mode a transport is compared with: shared memory for {@code local}, TCP over loopback otherwise. */
    static PeerResults.Peer ompi(String transport) {
        return new PeerResults.Peer("ompi", transport.equals("local") ? "shm" : "tcp");
    }

    /**
     * The one JSON object of {@code --json}: each row also carries the peers' time for the same N
     * ({@code mpj_mode}, {@code mpj_us} / {@code mpj_us_per_msg}, {@code ompi_mode}, {@code ompi_us} /
     * {@code ompi_us_per_msg}; {@code null} where the peer has no such case), and {@code peers} says
     * where each peer's numbers come from (measured in this run or the stored reference).
     */
    static String toJson(P2pBenchmark.Results r, PeerResults peers) throws Exception {
        List<Map<String, Object>> pp = new ArrayList<>();
        for (P2pBenchmark.PingPong p : r.pingpong()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("transport", p.transport());
            m.put("n", p.n());
            m.put("bytes", p.bytes());
            m.put("mpiws_us", round(p.mpiwsUs()));
            m.put("socket_us", round(p.socketUs()));
            peerFields(m, peers, p.transport(), PeerResults.PINGPONG, p.n(), "");
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
            peerFields(m, peers, p.transport(), PeerResults.PINGKPONG, p.n(), "_per_msg");
            psp.add(m);
        }
        Map<String, Object> all = new LinkedHashMap<>();
        all.put("pingpong", pp);
        all.put("pingstarpong", psp);
        all.put("peers", Map.of("mpj", peers.source("mpj"), "ompi", peers.source("ompi")));
        return new ObjectMapper().disable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(all);
    }

    private static void peerFields(Map<String, Object> m, PeerResults peers, String transport, String bench, int n, String suffix) {
        for (PeerResults.Peer peer : List.of(mpj(transport), ompi(transport))) {
            m.put(peer.peer() + "_mode", peer.mode());
            m.put(peer.peer() + "_us" + suffix, round(peers.us(peer, bench, 2, n)));
        }
    }

    /** A saved run: MPFL's results and the peers' numbers it was compared with. */
    record Saved(P2pBenchmark.Results results, PeerResults peers) {
    }

    /** Reads the JSON form back (for the plot and the docs). */
    @SuppressWarnings("unchecked")
    static Saved fromJson(String text) throws Exception {
        Map<String, Object> all = new ObjectMapper().readValue(text, Map.class);
        List<PeerResults.Row> peerRows = new ArrayList<>();
        List<P2pBenchmark.PingPong> pp = new ArrayList<>();
        for (Map<String, Object> m : (List<Map<String, Object>>) all.get("pingpong")) {
            pp.add(new P2pBenchmark.PingPong((String) m.get("transport"), ((Number) m.get("n")).intValue(),
                    ((Number) m.get("bytes")).longValue(), num(m.get("mpiws_us")), num(m.get("socket_us"))));
            peerRows(m, PeerResults.PINGPONG, "", peerRows);
        }
        List<P2pBenchmark.PingStarPong> psp = new ArrayList<>();
        for (Map<String, Object> m : (List<Map<String, Object>>) all.get("pingstarpong")) {
            psp.add(new P2pBenchmark.PingStarPong((String) m.get("transport"), ((Number) m.get("n")).intValue(),
                    ((Number) m.get("bytes")).longValue(), num(m.get("mpiws_us_per_msg")), num(m.get("socket_us_per_msg"))));
            peerRows(m, PeerResults.PINGKPONG, "_per_msg", peerRows);
        }
        Map<String, String> sources = new LinkedHashMap<>();
        if (all.get("peers") instanceof Map<?, ?> src) {
            src.forEach((k, v) -> sources.put(String.valueOf(k), String.valueOf(v)));
        }
        return new Saved(new P2pBenchmark.Results(pp, psp), new PeerResults(peerRows, sources));
    }

    private static void peerRows(Map<String, Object> m, String bench, String suffix, List<PeerResults.Row> out) {
        for (String peer : List.of("mpj", "ompi")) {
            Object mode = m.get(peer + "_mode");
            Object us = m.get(peer + "_us" + suffix);
            int n = ((Number) m.get("n")).intValue();
            PeerResults.Row row = new PeerResults.Row(peer, String.valueOf(mode), "double", bench, 2, n,
                    ((Number) m.get("bytes")).longValue(), num(us));
            if (mode != null && us != null && !out.contains(row)) {
                out.add(row);
            }
        }
    }

    private static double num(Object o) {
        return o == null ? Double.NaN : ((Number) o).doubleValue();
    }

    private static Double round(double v) {
        return Double.isNaN(v) ? null : Math.round(v * 10) / 10.0;
    }

    static void printTables(P2pBenchmark.Results r, PeerResults peers, PrintStream out) {
        out.println("PingPong: median round trip (us) for N x N doubles");
        String head = "%-8s %6s %10s %11s %10s %8s %10s %8s %10s %8s%n";
        String line = "%-8s %6d %10d %11.1f %10.1f %8.2f %10s %8s %10s %8s%n";
        out.printf(Locale.ROOT, head, "transport", "N", "bytes", "mpiws_us", "socket_us", "x_sock", "mpj_us", "x_mpj",
                "ompi_us", "x_ompi");
        for (P2pBenchmark.PingPong p : r.pingpong()) {
            double mpj = peers.us(mpj(p.transport()), PeerResults.PINGPONG, 2, p.n());
            double ompi = peers.us(ompi(p.transport()), PeerResults.PINGPONG, 2, p.n());
            out.printf(Locale.ROOT, line, p.transport(), p.n(), p.bytes(), p.mpiwsUs(), p.socketUs(), p.mpiwsUs() / p.socketUs(),
                    fmt(mpj, 1), fmt(p.mpiwsUs() / mpj, 2), fmt(ompi, 1), fmt(p.mpiwsUs() / ompi, 2));
        }
        out.println();
        out.println("Ping*Pong: time per message (us) = total of 10 sends + 1 reply / 11");
        out.printf(Locale.ROOT, head, "transport", "N", "bytes", "mpiws_us", "socket_us", "x_sock", "mpj_us", "x_mpj",
                "ompi_us", "x_ompi");
        for (P2pBenchmark.PingStarPong p : r.pingstarpong()) {
            double mpj = peers.us(mpj(p.transport()), PeerResults.PINGKPONG, 2, p.n());
            double ompi = peers.us(ompi(p.transport()), PeerResults.PINGKPONG, 2, p.n());
            out.printf(Locale.ROOT, line, p.transport(), p.n(), p.bytes(), p.mpiwsUsPerMsg(), p.socketUsPerMsg(),
                    p.mpiwsUsPerMsg() / p.socketUsPerMsg(), fmt(mpj, 1), fmt(p.mpiwsUsPerMsg() / mpj, 2), fmt(ompi, 1),
                    fmt(p.mpiwsUsPerMsg() / ompi, 2));
        }
        out.println();
        out.println("mpj_us: MPJ Express 0.44, double[] (niodev for soap/binary, multicore for local): " + peers.source("mpj"));
        out.println("ompi_us: Open MPI, MPI_DOUBLE (tcp over loopback for soap/binary, shared memory for local): "
                + peers.source("ompi"));
    }

    /** A number with {@code decimals}, or {@code -} where there is none. */
    public static String fmt(double v, int decimals) {
        return Double.isNaN(v) || Double.isInfinite(v) ? "-" : String.format(Locale.ROOT, "%." + decimals + "f", v);
    }

    /**
     * The PNG: two log-log panels against message size, PingPong round trip and Ping*Pong time per
     * message; a line per MPIWS transport, the raw socket reference, and dashed the peers' devices
     * the transports are compared with (labelled "stored" when not measured in this run).
     */
    static void plot(P2pBenchmark.Results r, PeerResults peers, Path png) throws java.io.IOException {
        List<String> transports = new ArrayList<>();
        r.pingpong().forEach(p -> {
            if (!transports.contains(p.transport())) {
                transports.add(p.transport());
            }
        });
        Map<String, List<double[]>> pp = new LinkedHashMap<>();
        Map<String, List<double[]>> psp = new LinkedHashMap<>();
        List<double[]> sockPp = new ArrayList<>();
        List<double[]> sockPsp = new ArrayList<>();
        java.util.Set<Integer> seen = new java.util.TreeSet<>();
        for (P2pBenchmark.PingPong p : r.pingpong()) {
            pp.computeIfAbsent("MPIWS " + p.transport(), k -> new ArrayList<>()).add(new double[] {p.bytes(), p.mpiwsUs()});
            if (seen.add(p.n())) {
                sockPp.add(new double[] {p.bytes(), p.socketUs()});
            }
        }
        seen.clear();
        for (P2pBenchmark.PingStarPong p : r.pingstarpong()) {
            psp.computeIfAbsent("MPIWS " + p.transport(), k -> new ArrayList<>()).add(new double[] {p.bytes(), p.mpiwsUsPerMsg()});
            if (seen.add(p.n())) {
                sockPsp.add(new double[] {p.bytes(), p.socketUsPerMsg()});
            }
        }
        List<BenchPlot.Line> left = new ArrayList<>();
        pp.forEach((k, v) -> left.add(new BenchPlot.Line(k, v, false)));
        left.add(new BenchPlot.Line("raw Java sockets", sockPp, false));
        List<BenchPlot.Line> right = new ArrayList<>();
        psp.forEach((k, v) -> right.add(new BenchPlot.Line(k, v, false)));
        right.add(new BenchPlot.Line("raw Java sockets", sockPsp, false));
        List<PeerResults.Peer> compared = new ArrayList<>();
        for (String t : transports) {
            for (PeerResults.Peer peer : List.of(mpj(t), ompi(t))) {
                if (!compared.contains(peer)) {
                    compared.add(peer);
                }
            }
        }
        for (PeerResults.Peer peer : compared) {
            String label = peer.label() + (peers.source(peer.peer()).startsWith("measured") ? "" : " (stored)");
            left.add(new BenchPlot.Line(label, peerLine(peers, peer, PeerResults.PINGPONG), true));
            right.add(new BenchPlot.Line(label, peerLine(peers, peer, PeerResults.PINGKPONG), true));
        }
        BenchPlot.writePanels(List.of(
                new BenchPlot.Panel("PingPong round trip (median, us)", "message size (bytes)", left),
                new BenchPlot.Panel("Ping*Pong time per message (us)", "message size (bytes)", right)), 2, png);
    }

    private static List<double[]> peerLine(PeerResults peers, PeerResults.Peer peer, String bench) {
        List<double[]> pts = new ArrayList<>();
        for (int n : peers.sizes(peer, bench, 2)) {
            pts.add(new double[] {8.0 * n * n, peers.us(peer, bench, 2, n)});
        }
        return pts;
    }
}
