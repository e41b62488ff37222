package org.mpfl.bench.workflow;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeSet;
import org.mpfl.bench.BenchPlot;
import org.mpfl.bench.MachineLoad;
import org.mpfl.bench.PingPongProgram;
import org.mpfl.ir.cli.Arguments;
import org.mpfl.ir.cli.UsageException;
import org.mpfl.ir.files.FileTrees;
import org.mpfl.testing.Await;
import org.mpfl.testing.Http;
import org.mpfl.testing.lab.NetworkLab;

/**
 * {@code mpflc bench lab --sites N}: MPFL across sites on the tests' own lab ({@link NetworkLab} with
 * {@link NetworkLab.Builder#sites}: N sites of {@code --hosts-per-site} hosts, each site behind a NAT
 * gateway that admits no connection from outside, a WAN bridge holding the engine, the relay and the
 * gateways, every WAN link shaped with tbf to {@code --rate} both ways, everything over TLS). In one
 * invocation, alternating the variants {@code --repeat} times so that both see the same machine load:
 * <ol>
 *   <li>PingPong between one host of site 1 and one of site 2, through the relay (the NAT lab) and
 *       direct (the lab variant whose gateways route between the sites, {@code sitesReachable}, one
 *       host per site: the pair needs no more): N=1 round trip (the relay's overhead per one-way
 *       message is half the difference) and N=500 (a 500×500 matrix of doubles, 2 MB each way:
 *       bandwidth relay/direct), against issue 21's targets (≤ 150 µs, ≥ 90 %);</li>
 *   <li>heat2d on every host of the NAT lab (its ranks in contiguous blocks per site), with the
 *       runtime's {@code auto} collectives (hierarchical across sites) and with its allreduce forced
 *       to a flat algorithm: the wall time and the messages and bytes that crossed between sites
 *       (the run's {@code siteTraffic}, from the ranks' traffic counters); both must end with equal
 *       results (iterations and residual; the allreduce is a max, exact in any order).</li>
 * </ol>
 * Before the measurement in each NAT lab it asserts that no host of one site can open a TCP
 * connection to a host of another. The lowest figure of the rounds is reported (load only adds time);
 * the WAN counts must be the same in every round (they are the algorithm's, not the machine's). Each
 * NAT lab first runs an untimed short heat2d, and the two heat2d variants take turns at going first.
 */
final class SitesLabBench {
    static final String LABEL = "[bench lab --sites]";
    /** heat2d's one collective as the sample writes it: the flat variant adds an algorithm to it. */
    static final String HEAT2D_ALLREDUCE = "<allreduce comm=\"grid\" data=\"localResidual\" op=\"max\" into=\"residual\"/>";
    static final String HEAT2D_LIBRARY = "<library path=\"../target/mpfl-samples.jar\"/>";
    /** The order of the PingPong matrix for the bandwidth figure (N ≥ 500 in the issue). */
    static final int BANDWIDTH_N = 500;

    /** The options of {@code bench lab} that {@code --sites} uses. */
    record Options(int sites, int hostsPerSite, String rate, int latencyIterations, int bandwidthIterations, int rounds,
                   int heat2dSize, int heat2dIterations, String flatAlgorithm, Path samples, Path plot) {
        int ranks() {
            return sites * hostsPerSite;
        }

        /** {@code s1,s2,…}: the lab's site names, which a run asks for to span them all. */
        String siteList() {
            StringJoiner j = new StringJoiner(",");
            for (int k = 1; k <= sites; k++) {
                j.add("s" + k);
            }
            return j.toString();
        }
    }

    /** Round trips of one variant; {@code transport} is what {@code auto} settled on. */
    record PingPong(double n1Us, double n500Us, String transport) {
        double mbitPerSecond() {
            return 2.0 * 8 * BANDWIDTH_N * BANDWIDTH_N * 8 / n500Us;
        }

        PingPong best(PingPong o) {
            return o == null ? this : new PingPong(Math.min(n1Us, o.n1Us), Math.min(n500Us, o.n500Us),
                    transport.equals(o.transport) ? transport : transport + "/" + o.transport);
        }
    }

    /** One heat2d run: its wall time, what crossed between sites, and its outputs (rank 0's). */
    record Heat2d(String algorithm, double wallMs, long wanMessages, long wanBytes, long iterations, double residual) {
        Heat2d best(Heat2d o) {
            return o == null ? this : new Heat2d(algorithm, Math.min(wallMs, o.wallMs), wanMessages, wanBytes, iterations, residual);
        }
    }

    /** Everything the command reports. */
    record Result(Options options, PingPong relay, PingPong direct, Heat2d hierarchical, Heat2d flat) {
        double relayOverheadUs() {
            return (relay.n1Us() - direct.n1Us()) / 2;
        }

        double bandwidthRatio() {
            return relay.mbitPerSecond() / direct.mbitPerSecond();
        }
    }

    private SitesLabBench() {
    }

    static Options parse(Arguments a) throws UsageException {
        int sites = a.intAtLeast("--sites", 2);
        int perSite = a.intAtLeast("--hosts-per-site", 1);
        String rate = a.has("--rate") ? a.value("--rate") : "100mbit";
        try {
            LabNetwork.bitsPerSecond(rate);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--rate " + rate + ": " + e.getMessage() + " (with --sites: the WAN links' rate)");
        }
        if (sites > 9 || perSite > 80) {
            throw new UsageException("--sites at most 9 and --hosts-per-site at most 80 fit the lab's addresses, got "
                    + sites + " and " + perSite);
        }
        if (a.flag("--json")) {
            throw new UsageException("--json: not with --sites (the sites comparison prints a table)");
        }
        String flat = a.value("--flat-algorithm");
        if (flat.equals("auto") || flat.equals("hierarchical") || !flat.matches("[a-z][a-z-]*")) {
            throw new UsageException("--flat-algorithm: a flat allreduce algorithm of the runtime (e.g. recursive-doubling, ring,"
                    + " reduce-broadcast), got " + flat);
        }
        return new Options(sites, perSite, rate, a.intAtLeast("--latency-iterations", 1), a.intAtLeast("--bandwidth-iterations", 1),
                a.intAtLeast("--repeat", 1), a.intAtLeast("--heat2d-size", 4), a.intAtLeast("--heat2d-iterations", 1), flat,
                Path.of(a.value("--samples")), a.path("--plot"));
    }

    /**
     * Runs both parts, prints the table on {@code out} (progress on {@code err}), writes the plot if asked;
     * what the lab reports as an assertion (a process left in a namespace, a run that did not end) is
     * this command's error.
     */
    static Result run(Options o, PrintStream out, PrintStream err) throws Exception {
        try {
            return measure(o, out, err);
        } catch (AssertionError e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    private static Result measure(Options o, PrintStream out, PrintStream err) throws Exception {
        Path work = Files.createTempDirectory("mpfl-bench-sites-");
        try {
            Path hierarchicalDoc = heat2dDocument(o.samples(), work.resolve("hierarchical.mpfl.xml"), null);
            Path flatDoc = heat2dDocument(o.samples(), work.resolve("flat.mpfl.xml"), o.flatAlgorithm());
            PingPong relay = null;
            PingPong direct = null;
            Heat2d hierarchical = null;
            Heat2d flat = null;
            for (int round = 1; round <= o.rounds(); round++) {
                err.println(LABEL + " round " + round + " of " + o.rounds() + ": " + o.sites() + " sites x " + o.hostsPerSite()
                        + " hosts behind NAT gateways, relay on the WAN, WAN links tbf " + o.rate() + " both ways, TLS "
                        + BenchCommands.load());
                try (NetworkLab lab = lab(o, false, o.hostsPerSite(), err)) {
                    err.println(LABEL + " asserting that no host of one site can open a TCP connection to another site");
                    assertIsolated(lab);
                    err.println(LABEL + " sites isolated; PingPong s1 <-> s2 through the relay");
                    PingPong r = pingPong(lab, o, err);
                    err.println(LABEL + " relay: " + describe(r));
                    heat2dWarmUp(lab, o, hierarchicalDoc, err);
                    // the variants take turns at going first: the second run of a lab found its hosts warmer
                    Heat2d h;
                    Heat2d f;
                    if (round % 2 == 1) {
                        h = heat2d(lab, o, hierarchicalDoc, "auto", err);
                        f = heat2d(lab, o, flatDoc, o.flatAlgorithm(), err);
                    } else {
                        f = heat2d(lab, o, flatDoc, o.flatAlgorithm(), err);
                        h = heat2d(lab, o, hierarchicalDoc, "auto", err);
                    }
                    sameResults(h, f);
                    hierarchical = consistent(hierarchical, h);
                    flat = consistent(flat, f);
                    relay = r.best(relay);
                }
                err.println(LABEL + " round " + round + ": the direct variant (gateways route between the sites, no relay) "
                        + BenchCommands.load());
                try (NetworkLab lab = lab(o, true, 1, err)) {
                    PingPong d = pingPong(lab, o, err);
                    err.println(LABEL + " direct: " + describe(d));
                    direct = d.best(direct);
                }
            }
            Result result = new Result(o, relay, direct, hierarchical, flat);
            if (o.plot() != null) {
                plot(result, o.plot());
                err.println(LABEL + " plot written to " + o.plot());
            }
            printTable(result, out);
            out.flush();
            return result;
        } finally {
            FileTrees.deleteQuietly(work);
        }
    }

    private static NetworkLab lab(Options o, boolean reachable, int hostsPerSite, PrintStream err) throws Exception {
        err.println(LABEL + " making the lab: namespaces, " + o.sites() + " site bridges and gateways, the WAN, the engine"
                + (reachable ? "" : ", the relay") + " and " + o.sites() * hostsPerSite + " hosts (TLS) " + BenchCommands.load());
        long t0 = System.nanoTime();
        NetworkLab lab = build(o, reachable, hostsPerSite);
        err.println(String.format(Locale.ROOT, "%s lab ready in %.1f s", LABEL, (System.nanoTime() - t0) / 1e9));
        return lab;
    }

    private static NetworkLab build(Options o, boolean reachable, int hostsPerSite) throws Exception {
        NetworkLab.Builder b = NetworkLab.builder().sites(o.sites(), hostsPerSite).wanRate(o.rate()).capacity(1).tls()
                .hostService("pingpong", PingPongProgram.class)
                // the binary channel's set-up probe goes through the relay too: room for it on a loaded machine
                .hostSetup((lab, node, launcher) -> {
                    NetworkLab.HostSetup.OWN_CREDENTIAL_IN_ENVIRONMENT.configure(lab, node, launcher);
                    launcher.jvmArg("-Dmpfl.binary.probeTimeoutMs=8000");
                });
        if (reachable) {
            b.sitesReachable();
        }
        return b.start();
    }

    /** The lab's isolation check, its failure as this command's error (not a test's assertion). */
    private static void assertIsolated(NetworkLab lab) throws IOException {
        try {
            lab.assertSitesIsolated();
        } catch (AssertionError e) {
            throw new IOException("the sites are not isolated, so the comparison would not be across NAT: " + e.getMessage());
        }
    }

    private static String describe(PingPong p) {
        return String.format(Locale.ROOT, "N=1 round trip %.0f us, N=%d round trip %.0f us (%.1f Mbit/s), transport %s",
                p.n1Us(), BANDWIDTH_N, p.n500Us(), p.mbitPerSecond(), p.transport());
    }

    private static PingPong pingPong(NetworkLab lab, Options o, PrintStream err) throws Exception {
        double n1 = pingPongRun(lab, o, 1, o.latencyIterations(), Math.max(1, o.latencyIterations() / 3));
        double n500 = pingPongRun(lab, o, BANDWIDTH_N, o.bandwidthIterations(), Math.max(1, o.bandwidthIterations() / 3));
        return new PingPong(n1, n500, transport(lab));
    }

    /** What {@code auto} settled on: SOAP when a host logged that the binary channel's probe failed. */
    private static String transport(NetworkLab lab) throws IOException {
        for (NetworkLab.Host h : lab.hosts()) {
            if (Files.readString(h.process().log()).contains("go over SOAP for this domain")) {
                return "soap (binary probe failed at " + h.hostId() + ")";
            }
        }
        return "binary";
    }

    /** One PingPong run across the sites; its median round trip (µs) after checking the echoes and the placement. */
    private static double pingPongRun(NetworkLab lab, Options o, int n, int iters, int warmup) throws Exception {
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("n", n);
        params.put("iters", iters);
        params.put("warmup", warmup);
        params.put("kiters", 1);
        params.put("kwarmup", 0);
        Map<String, Object> start = new LinkedHashMap<>();
        start.put("params", params);
        start.put("plan", Map.of("workflow", "pingpong", "processes", List.of(Map.of("name", "pp", "service", "pingpong", "ranks", 2))));
        start.put("sites", "s1,s2");
        Http.Answer a = lab.http().post(lab.engineUrl(lab.engineNode()) + "/api/runs", lab.token(), start);
        if (a.status() != 201) {
            throw new IOException("the engine refused the PingPong run: " + a);
        }
        JsonNode d = ended(lab, a.json().get("id").asText());
        TreeSet<String> sites = new TreeSet<>();
        d.path("ranks").forEach(r -> sites.add(r.path("site").asText()));
        if (!sites.equals(new TreeSet<>(List.of("s1", "s2")))) {
            throw new IOException("the PingPong pair was placed on sites " + sites + ", not across s1 and s2: " + d.path("placement"));
        }
        JsonNode out = d.path("outputs");
        // PingPong's echo brings rank 0's own matrix back (1.0), Ping*Pong's reply is rank 1's (2.0)
        if (out.at("/pingpong_check/0").asDouble() != 1.0 || out.at("/pingstarpong_check/0").asDouble() != 2.0) {
            throw new IOException("PingPong N=" + n + " came back wrong: " + out);
        }
        return out.at("/pingpong_us/0").asDouble();
    }

    /** Waits (bounded) until the run ends; its detail when it succeeded, else an error with the lab's logs. */
    private static JsonNode ended(NetworkLab lab, String id) throws Exception {
        JsonNode d;
        try {
            d = Await.runEnds(Duration.ofMinutes(10), () -> lab.run(id), lab::logs);
        } catch (AssertionError e) {
            throw new IOException("run " + id + " did not end within 10 minutes: " + e.getMessage());
        }
        if (!"SUCCEEDED".equals(d.path("state").asText())) {
            throw new IOException("run " + id + " ended " + d.path("state").asText() + ": " + d.path("error") + "\n" + lab.logs());
        }
        return d;
    }

    /**
     * heat2d on every host of the lab, its ranks over all sites, with no tolerance (it runs exactly
     * {@code --heat2d-iterations} sweeps); the wall time is the engine's, all ranks running to the end.
     */
    private static Heat2d heat2d(NetworkLab lab, Options o, Path doc, String algorithm, PrintStream err) throws Exception {
        err.println(LABEL + " heat2d " + o.heat2dSize() + "x" + o.heat2dSize() + ", " + o.ranks() + " ranks over " + o.siteList()
                + ", " + o.heat2dIterations() + " iterations, allreduce " + algorithm + " " + BenchCommands.load());
        JsonNode d = runHeat2d(lab, o, doc, o.heat2dIterations(), "heat2d (" + algorithm + ")");
        long[] wan = wanTraffic(d);
        double wall = d.path("endedMs").asDouble() - d.path("startedMs").asDouble() - d.path("startupMs").asDouble();
        Heat2d h = new Heat2d(algorithm, wall, wan[0], wan[1], d.at("/outputs/iterations/0").asLong(),
                d.at("/outputs/residual/0").asDouble());
        err.println(String.format(Locale.ROOT, "%s heat2d %s: %.0f ms, %d messages (%d bytes) between sites, %d iterations,"
                + " residual %s", LABEL, algorithm, h.wallMs(), h.wanMessages(), h.wanBytes(), h.iterations(), h.residual()));
        return h;
    }

    /**
     * One untimed heat2d of at most 20 sweeps across the sites before the measured ones: the first run of a
     * fresh lab also loads classes and opens the hosts' connections through the relay (14 s against 5 s
     * for the same 200 sweeps right after, measured 2026-11-29 at load 20).
     */
    private static void heat2dWarmUp(NetworkLab lab, Options o, Path doc, PrintStream err) throws Exception {
        int sweeps = Math.min(20, o.heat2dIterations());
        err.println(LABEL + " heat2d warm-up, " + sweeps + " sweeps (not measured)");
        runHeat2d(lab, o, doc, sweeps, "heat2d warm-up");
    }

    /** {@code mpflc run} of heat2d over every site for exactly {@code sweeps} sweeps; its detail once it succeeded. */
    private static JsonNode runHeat2d(NetworkLab lab, Options o, Path doc, int sweeps, String what) throws Exception {
        JsonNode summary;
        try {
            summary = lab.runDocument(doc, List.of("--sites", o.siteList()), "rows=" + o.heat2dSize(), "columns=" + o.heat2dSize(),
                    "ranks=" + o.ranks(), "maxIter=" + sweeps, "tolerance=0", "progressEvery=" + sweeps);
        } catch (AssertionError e) {
            throw new IOException(what + ": " + e.getMessage());
        }
        return ended(lab, summary.path("run").asText());
    }

    /** Messages and bytes between different sites, from the run's {@code siteTraffic} (the ranks' traffic counters). */
    static long[] wanTraffic(JsonNode detail) throws IOException {
        JsonNode traffic = detail.path("siteTraffic");
        if (!traffic.isObject()) {
            throw new IOException("the run has no siteTraffic: its ranks were not placed across sites: " + detail.path("placement"));
        }
        long[] out = new long[2];
        traffic.fields().forEachRemaining(from -> from.getValue().fields().forEachRemaining(to -> {
            if (!from.getKey().equals(to.getKey())) {
                out[0] += to.getValue().path("messages").asLong();
                out[1] += to.getValue().path("bytes").asLong();
            }
        }));
        return out;
    }

    private static void sameResults(Heat2d a, Heat2d b) throws IOException {
        if (a.iterations() != b.iterations() || Double.doubleToLongBits(a.residual()) != Double.doubleToLongBits(b.residual())) {
            throw new IOException("heat2d's results differ: " + a.algorithm() + " " + a.iterations() + " iterations, residual "
                    + a.residual() + "; " + b.algorithm() + " " + b.iterations() + " iterations, residual " + b.residual());
        }
    }

    /** The best wall time of the rounds; the WAN counts and the results must not change between rounds. */
    private static Heat2d consistent(Heat2d before, Heat2d now) throws IOException {
        if (before != null && (before.wanMessages() != now.wanMessages() || before.wanBytes() != now.wanBytes())) {
            throw new IOException("heat2d (" + now.algorithm() + ") sent " + now.wanMessages() + " messages between sites, "
                    + before.wanMessages() + " in an earlier round: the counts should be the algorithm's alone");
        }
        if (before != null) {
            sameResults(before, now);
        }
        return now.best(before);
    }

    /** The sample's document with its library at its absolute place and, for the flat variant, the allreduce's algorithm. */
    static Path heat2dDocument(Path samples, Path out, String algorithm) throws IOException {
        Path doc = samples.resolve("heat2d").resolve("heat2d.mpfl.xml");
        Path library = samples.resolve("target").resolve("mpfl-samples.jar").toAbsolutePath().normalize();
        if (!Files.isRegularFile(doc)) {
            throw new IOException(doc + " is missing: run the bench from the repository's top directory (or give --samples DIR)");
        }
        if (!Files.isRegularFile(library)) {
            throw new IOException("heat2d's activity code " + library + " is missing: build the samples first"
                    + " (mvn -q -pl samples -am package -DskipTests)");
        }
        String text = Files.readString(doc, StandardCharsets.UTF_8);
        if (!text.contains(HEAT2D_LIBRARY) || !text.contains(HEAT2D_ALLREDUCE)) {
            throw new IOException(doc + " no longer has " + HEAT2D_LIBRARY + " and " + HEAT2D_ALLREDUCE
                    + ", which this benchmark rewrites");
        }
        text = text.replace(HEAT2D_LIBRARY, "<library path=\"" + library + "\"/>");
        if (algorithm != null) {
            text = text.replace(HEAT2D_ALLREDUCE, HEAT2D_ALLREDUCE.replace("/>", " algorithm=\"" + algorithm + "\"/>"));
        }
        Files.writeString(out, text, StandardCharsets.UTF_8);
        return out;
    }

    static void printTable(Result r, PrintStream out) {
        Options o = r.options();
        out.printf(Locale.ROOT, "Relay vs direct: PingPong between a host of site s1 and one of s2, WAN links tbf %s both ways, TLS;"
                + " best of %d rounds (variants alternating)%n", o.rate(), o.rounds());
        out.printf(Locale.ROOT, "%-8s %13s %15s %15s %12s  %s%n", "variant", "n1_rtt_us", "n1_one_way_us", "n500_rtt_us", "n500_mbit_s",
                "transport");
        for (Map.Entry<String, PingPong> e : List.of(Map.entry("relay", r.relay()), Map.entry("direct", r.direct()))) {
            PingPong p = e.getValue();
            out.printf(Locale.ROOT, "%-8s %13.0f %15.0f %15.0f %12.1f  %s%n", e.getKey(), p.n1Us(), p.n1Us() / 2, p.n500Us(),
                    p.mbitPerSecond(), p.transport());
        }
        out.printf(Locale.ROOT, "relay overhead N=1: %.0f us per one-way message (target <= 150: %s)%n", r.relayOverheadUs(),
                r.relayOverheadUs() <= 150 ? "met" : "missed");
        out.printf(Locale.ROOT, "bandwidth N=%d relay/direct: %.2f (target >= 0.90: %s)%n", BANDWIDTH_N, r.bandwidthRatio(),
                r.bandwidthRatio() >= 0.90 ? "met" : "missed");
        out.println();
        out.printf(Locale.ROOT, "heat2d across %d sites x %d hosts through the relay: %dx%d plate, %d ranks, %d iterations;"
                + " best wall of %d rounds%n", o.sites(), o.hostsPerSite(), o.heat2dSize(), o.heat2dSize(), o.ranks(),
                o.heat2dIterations(), o.rounds());
        out.printf(Locale.ROOT, "%-13s %-20s %10s %13s %12s %11s  %s%n", "collectives", "allreduce", "wall_ms", "wan_messages",
                "wan_bytes", "iterations", "residual");
        for (Heat2d h : List.of(r.hierarchical(), r.flat())) {
            out.printf(Locale.ROOT, "%-13s %-20s %10.0f %13d %12d %11d  %s%n", h == r.hierarchical() ? "hierarchical" : "flat",
                    h.algorithm(), h.wallMs(), h.wanMessages(), h.wanBytes(), h.iterations(), h.residual());
        }
        out.printf(Locale.ROOT, "flat/hierarchical: wall %.2fx, WAN messages %.2fx, WAN bytes %.2fx; results equal: yes%n",
                r.flat().wallMs() / r.hierarchical().wallMs(), (double) r.flat().wanMessages() / Math.max(1, r.hierarchical().wanMessages()),
                (double) r.flat().wanBytes() / Math.max(1, r.hierarchical().wanBytes()));
        out.println("wall_ms: all ranks running to the run's end (the engine's record); wan_messages/bytes: sent between ranks"
                + " of different sites (the run's siteTraffic, from the ranks' traffic counters), halo exchange included");
        out.printf(Locale.ROOT, "machine: %d CPUs, load average %.2f when the table was printed%n",
                Runtime.getRuntime().availableProcessors(), MachineLoad.loadAverage());
    }

    /** Round trips against N (relay, direct) and heat2d's wall time and WAN messages (hierarchical, flat). */
    static void plot(Result r, Path png) throws IOException {
        List<BenchPlot.Line> pingPong = new ArrayList<>();
        for (Map.Entry<String, PingPong> e : List.of(Map.entry("through the relay (NAT sites)", r.relay()),
                Map.entry("direct (sites route to each other)", r.direct()))) {
            pingPong.add(new BenchPlot.Line(e.getKey(), List.of(new double[] {1, e.getValue().n1Us()},
                    new double[] {BANDWIDTH_N, e.getValue().n500Us()}), false));
        }
        double x = r.options().heat2dIterations();
        List<BenchPlot.Line> wall = new ArrayList<>();
        List<BenchPlot.Line> wan = new ArrayList<>();
        for (Heat2d h : List.of(r.hierarchical(), r.flat())) {
            String name = (h == r.hierarchical() ? "hierarchical (auto)" : "flat (" + h.algorithm() + ")");
            wall.add(new BenchPlot.Line(name, List.<double[]>of(new double[] {x, h.wallMs()}), false));
            wan.add(new BenchPlot.Line(name, List.<double[]>of(new double[] {x, h.wanMessages()}), false));
        }
        BenchPlot.writePanels(List.of(
                new BenchPlot.Panel("PingPong across sites, round trip (us), " + r.options().rate() + " WAN", "matrix order N", pingPong),
                new BenchPlot.Panel("heat2d across sites: wall (ms)", "iterations", wall),
                new BenchPlot.Panel("heat2d across sites: messages between sites", "iterations", wan)), png);
    }
}
