package org.mpfl.bench.collective;


import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.mpfl.bench.BenchCommand;
import org.mpfl.bench.BenchOptions;
import org.mpfl.bench.BenchPlot;
import org.mpfl.bench.PeerResults;
import org.mpfl.bench.PeerRuns;
import org.mpfl.ir.cli.ArgumentSpec;
import org.mpfl.ir.cli.Arguments;
import org.mpfl.ir.cli.CliCommand;
import org.mpfl.ir.cli.UsageException;
import org.mpfl.runtime.collective.Collectives;

/**
 * {@code mpflc bench collectives [--json] [--ranks 2,4,8] [--sizes 10,100,300,700]
 * [--transport auto|soap|binary[,...]] [--ops bcast,gather,allreduce,barrier] [--scale X]
 * [--with-peers | --with-mpj | --with-ompi] [--peers DIR] [--quiet-wait SECONDS] [--host-jvm-arg ARG]...
 * [--save FILE.json] [--plot FILE.png] [--from FILE.json]}: median of the
 * max-over-ranks time of barrier, broadcast, gather and allreduce for every algorithm and for
 * {@code auto}, with ranks spread round-robin over two local service hosts
 * ({@link CollectivesBenchmark}). Prints a table with the ratios to MPJ Express niodev and Open MPI
 * tcp, or with {@code --json} one object
 * {@code {"results":[{"op","algorithm","transport","p","n","bytes","median_us",…,"mpj_us","ompi_us"}...],"peers":{…}}}.
 * With {@code --with-mpj}/{@code --with-ompi}/{@code --with-peers} the peers' scripts run first, in
 * the same invocation, at the same rank counts ({@link PeerRuns}); otherwise, and for a peer that is
 * not installed, their stored results are used and labelled so. Progress goes to stderr.
 * {@code --from} re-reads saved results (with the peers' numbers saved with them) instead of measuring.
 *
 * <p>Reached as {@code mpflc bench collectives ...} (the {@code bench} command hands the arguments
 * after {@code collectives} to {@link #run}).
 */
public final class CollectivesBenchCommand implements CliCommand {
    static final List<String> DEFAULT_HOST_JVM_ARGS = org.mpfl.bench.BenchCommand.DEFAULT_HOST_JVM_ARGS;
    static final List<String> OPS = List.of("barrier", "bcast", "gather", "allreduce");

    @Override
    public String name() {
        return "bench collectives";
    }

    @Override
    public String summary() {
        return "[--json] [--ranks 2,4,8] [--sizes ...] [--transport auto|soap|binary] [--ops ...] [--with-peers|--with-mpj|--with-ompi]"
                + "  collectives vs MPJ Express and Open MPI";
    }

    /** The options of {@code bench collectives}. */
    record Options(boolean json, List<Integer> ranks, List<Integer> sizes, List<String> transports, List<String> ops,
                   double scale, List<String> hostJvmArgs, Path save, Path plot, Path from, int quietWait,
                   PeerRuns.Options peers) {
    }

    static final ArgumentSpec SPEC = ArgumentSpec.of("bench collectives", "Barrier, broadcast, gather and allreduce over"
            + " two local service hosts, with the ratios to MPJ Express niodev and Open MPI tcp.")
            .value("--ranks", "2,4,8", "2,4,8", "rank counts (1..64)")
            .value("--sizes", "10,100,...", "10,100,300,700", "message sizes (doubles)")
            .value("--transport", "auto|soap|binary", "auto", "the transports measured (comma-separated)")
            .alias("--transports", "--transport")
            .value("--ops", "barrier,bcast,...", String.join(",", OPS), "the operations measured")
            .with(BenchOptions::measuredAgainstPeers);

    static Options parse(List<String> args) throws UsageException {
        Arguments a = SPEC.parse(args);
        List<Integer> ranks = a.intList("--ranks", 1);
        for (int p : ranks) {
            if (p > 64) {
                throw new UsageException("--ranks: " + p + " is out of range 1..64");
            }
        }
        PeerRuns.Options peers = PeerRuns.Options.of(a);
        return new Options(a.flag("--json"), ranks, a.intList("--sizes", 0), a.choices("--transport", List.of("auto", "soap", "binary")),
                a.choices("--ops", OPS), a.number("--scale"), BenchOptions.hostJvmArgs(a, DEFAULT_HOST_JVM_ARGS), a.path("--save"),
                a.path("--plot"), a.path("--from"), peers.quietWait(), peers);
    }

    /** The MPJ Express device compared with: niodev (TCP between JVMs), as the targets. */
    static final PeerResults.Peer MPJ = new PeerResults.Peer("mpj", "niodev");
    /** The Open MPI mode compared with: TCP over loopback. */
    static final PeerResults.Peer OMPI = new PeerResults.Peer("ompi", "tcp");

    /** What the peers' scripts run: their collectives at the rank counts asked for. */
    static PeerRuns.Request peerRequest(Options o) {
        return new PeerRuns.Request("coll", o.ranks(), o.scale(), List.of(MPJ.mode()), List.of(OMPI.mode()));
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws Exception {
        Options o = parse(args);
        List<CollectivesBenchmark.Result> results;
        PeerResults peers;
        if (o.from() != null) {
            Saved saved = fromJson(Files.readString(o.from()));
            results = saved.results();
            peers = PeerRuns.ofSaved(saved.peers(), o.peers().dir());
        } else {
            peers = PeerRuns.compare(o.peers(), peerRequest(o), err);
            Map<String, List<String>> cases = new LinkedHashMap<>();
            for (String op : o.ops()) {
                // auto last: measured after the named algorithms, it is not the one that meets a cold path
                List<String> algs = new ArrayList<>(Collectives.algorithms(op));
                algs.add("auto");
                cases.put(op, algs);
            }
            results = new CollectivesBenchmark(o.ranks(), o.sizes(), o.transports(), cases, o.scale(), o.hostJvmArgs(), err)
                    .quietWait(o.quietWait()).run();
        }
        String text = toJson(results, peers);
        if (o.save() != null) {
            Files.writeString(o.save(), text + "\n");
            err.println("[bench] results saved to " + o.save());
        }
        if (o.plot() != null) {
            plot(results, peers, o.plot());
            err.println("[bench] plot written to " + o.plot());
        }
        if (o.json()) {
            out.println(text);
        } else {
            printTable(results, peers, out);
        }
        return 0;
    }
    /**
     * {@code {"results":[{op,algorithm,transport,p,n,bytes,median_us,min_us,mean_us,iterations,
     * mpj_mode,mpj_us,ompi_mode,ompi_us}…],"peers":{"mpj":source,"ompi":source}}}: each row with the
     * peers' median for the same op, p and N ({@code null} where they have none).
     */
    static String toJson(List<CollectivesBenchmark.Result> results, PeerResults peers) throws Exception {
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
            for (PeerResults.Peer peer : List.of(MPJ, OMPI)) {
                m.put(peer.peer() + "_mode", peer.mode());
                m.put(peer.peer() + "_us", round(peers.us(peer, r.op(), r.p(), r.n())));
            }
            rows.add(m);
        }
        Map<String, Object> all = new LinkedHashMap<>();
        all.put("results", rows);
        all.put("peers", Map.of("mpj", peers.source("mpj"), "ompi", peers.source("ompi")));
        return new ObjectMapper().writeValueAsString(all);
    }

    /** A saved run: the results and the peers' numbers they were compared with. */
    record Saved(List<CollectivesBenchmark.Result> results, PeerResults peers) {
    }

    @SuppressWarnings("unchecked")
    static Saved fromJson(String text) throws Exception {
        Map<String, Object> all = new ObjectMapper().readValue(text, Map.class);
        List<CollectivesBenchmark.Result> out = new ArrayList<>();
        List<PeerResults.Row> peerRows = new ArrayList<>();
        for (Map<String, Object> m : (List<Map<String, Object>>) all.get("results")) {
            CollectivesBenchmark.Result r = new CollectivesBenchmark.Result((String) m.get("op"), (String) m.get("algorithm"),
                    (String) m.get("transport"), ((Number) m.get("p")).intValue(), ((Number) m.get("n")).intValue(),
                    ((Number) m.get("bytes")).longValue(), num(m.get("median_us")), num(m.get("min_us")),
                    num(m.get("mean_us")), m.get("iterations") == null ? 0 : ((Number) m.get("iterations")).intValue());
            out.add(r);
            for (String peer : List.of("mpj", "ompi")) {
                Object mode = m.get(peer + "_mode");
                Object us = m.get(peer + "_us");
                if (mode != null && us != null) {
                    PeerResults.Row row = new PeerResults.Row(peer, mode.toString(), r.op().equals("barrier") ? "none" : "double",
                            r.op(), r.p(), r.n(), r.bytes(), num(us));
                    if (!peerRows.contains(row)) {
                        peerRows.add(row);
                    }
                }
            }
        }
        Map<String, String> sources = new LinkedHashMap<>();
        if (all.get("peers") instanceof Map<?, ?> src) {
            src.forEach((k, v) -> sources.put(String.valueOf(k), String.valueOf(v)));
        }
        return new Saved(out, new PeerResults(peerRows, sources));
    }

    private static double num(Object o) {
        return o == null ? Double.NaN : ((Number) o).doubleValue();
    }

    private static Double round(double v) {
        return Double.isNaN(v) ? null : Math.round(v * 10) / 10.0;
    }

    static void printTable(List<CollectivesBenchmark.Result> results, PeerResults peers, PrintStream out) {
        out.println("Collectives: median over iterations of the max-over-ranks time (us), N x N doubles, root 0");
        out.printf(Locale.ROOT, "%-9s %-24s %-9s %3s %5s %10s %11s %11s %7s %11s %7s%n", "op", "algorithm", "transport", "p", "N",
                "bytes", "median_us", "mpj_us", "x_mpj", "ompi_us", "x_ompi");
        for (CollectivesBenchmark.Result r : results) {
            double mpj = peers.us(MPJ, r.op(), r.p(), r.n());
            double ompi = peers.us(OMPI, r.op(), r.p(), r.n());
            out.printf(Locale.ROOT, "%-9s %-24s %-9s %3d %5d %10d %11.1f %11s %7s %11s %7s%n", r.op(), r.algorithm(),
                    r.transport(), r.p(), r.n(), r.bytes(), r.medianUs(), BenchCommand.fmt(mpj, 1),
                    BenchCommand.fmt(r.medianUs() / mpj, 2), BenchCommand.fmt(ompi, 1), BenchCommand.fmt(r.medianUs() / ompi, 2));
        }
        out.println();
        out.println("mpj_us: MPJ Express 0.44 niodev, double[]: " + peers.source("mpj"));
        out.println("ompi_us: Open MPI tcp (loopback), MPI_DOUBLE: " + peers.source("ompi"));
    }

    /**
     * The PNG ({@link BenchPlot}, panels two by two): per operation measured, time against N at the largest p
     * measured (barrier: against p), with the first transport; a line per algorithm, and dashed MPJ
     * Express niodev and Open MPI tcp (labelled "stored" when not measured in this run).
     */
    static void plot(List<CollectivesBenchmark.Result> results, PeerResults peers, Path png) throws java.io.IOException {
        String transport = results.isEmpty() ? "auto" : results.get(0).transport();
        int maxP = results.stream().filter(r -> !r.op().equals("barrier")).mapToInt(CollectivesBenchmark.Result::p).max().orElse(0);
        List<BenchPlot.Panel> panels = new ArrayList<>();
        for (String op : List.of("bcast", "gather", "allreduce", "barrier")) {
            if (!panels.isEmpty() && results.stream().noneMatch(r -> r.op().equals(op))) {
                continue; // an operation left out with --ops
            }
            boolean barrier = op.equals("barrier");
            Map<String, List<double[]>> byAlg = new LinkedHashMap<>();
            java.util.TreeSet<Integer> xs = new java.util.TreeSet<>();
            for (CollectivesBenchmark.Result r : results) {
                if (r.op().equals(op) && r.transport().equals(transport) && (barrier || r.p() == maxP) && r.medianUs() > 0) {
                    byAlg.computeIfAbsent(r.algorithm(), k -> new ArrayList<>()).add(new double[] {barrier ? r.p() : r.n(), r.medianUs()});
                    xs.add(barrier ? r.p() : r.n());
                }
            }
            List<BenchPlot.Line> lines = new ArrayList<>();
            byAlg.forEach((alg, pts) -> lines.add(new BenchPlot.Line(alg, pts, false)));
            for (PeerResults.Peer peer : List.of(MPJ, OMPI)) {
                List<double[]> pts = new ArrayList<>();
                for (int x : xs) {
                    double v = barrier ? peers.us(peer, op, x, 0) : peers.us(peer, op, maxP, x);
                    if (!Double.isNaN(v)) {
                        pts.add(new double[] {x, v});
                    }
                }
                if (!pts.isEmpty()) {
                    lines.add(new BenchPlot.Line(peer.label() + (peers.source(peer.peer()).startsWith("measured") ? "" : " (stored)"),
                            pts, true));
                }
            }
            String title = barrier ? "barrier (" + transport + "), median us vs p"
                    : op + " (" + transport + "), p=" + maxP + ", median us vs N";
            panels.add(new BenchPlot.Panel(title, barrier ? "p (ranks)" : "N (N x N doubles)", lines));
        }
        BenchPlot.writePanels(panels, 2, png);
    }
}
