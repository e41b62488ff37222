package org.mpfl.bench.workflow;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.mpfl.bench.BenchOptions;
import org.mpfl.ir.cli.ArgumentSpec;
import org.mpfl.ir.cli.Arguments;
import org.mpfl.ir.cli.CliCommand;
import org.mpfl.ir.cli.UsageException;
import org.mpfl.ir.files.FileTrees;

/**
 * {@code mpflc bench lab [--hosts 4] [--rate 1gbit|none] [--ranks 16,64,256] [--iterations 100] [--repeat 3]
 * [--mediator-ranks 4,8] [--kb 200] [--mediator-iterations 50] [--warmup-seconds 15] [--host-jvm-arg ARG]…
 * [--json] [--plot FILE.png]}: MPFL on "real links" — an engine and {@code --hosts} service hosts, each in a
 * network namespace of its own on a private bridge ({@link LabNetwork}, 10.78.0.0/24, every link shaped
 * to {@code --rate} with tc's tbf in both directions): (A) {@link ScaleBenchmark}, a ring and an allreduce
 * loop on every rank count of {@code --ranks}, checked, with start-up time, run time and host memory per
 * rank; (B) {@link MediatorBenchmark}, direct messaging against the BPEL-style mediator for every p of
 * {@code --mediator-ranks} over the same links. Needs root and iproute2 ({@code ip}, {@code tc}); refuses
 * with a message naming what is missing otherwise.
 *
 * <p>A command rather than options of {@code bench startup}/{@code bench mediator}: both parts need
 * the same lab (namespaces, bridge, shaping, the engine inside it), which costs seconds to make and
 * must be removed however the command ends, and the rank counts and the hosts' capacity differ from
 * what those commands measure on loopback.
 *
 * <p>This process makes the lab and removes it (also on failure and Ctrl-C: a shutdown hook); the
 * measurement runs in a second JVM started inside the engine's namespace ({@link LabInside}), since
 * the engine (with the mediator, in its process as in {@code bench mediator}) must listen on a lab
 * address; that JVM starts the hosts in theirs through {@code HostProcesses} with an
 * {@code ip netns exec NS} prefix, credentials issued by the engine in their environment. Progress on
 * stderr; a table, or with {@code --json} one object {@code {"hosts","rate","scale":[{"p","iterations",
 * "first_startup_ms","startup_ms","run_ms","loop_ms","kib_per_rank","first_kib_per_rank","host_rss_mib",
 * "repeats"}…],"mediator":[…as bench mediator --json…]}}.
 *
 * <p>With {@code --sites N} it measures across sites instead, on the tests' own lab ({@code NetworkLab}: sites
 * behind NAT gateways, a relay, TLS) in this JVM: {@link SitesLabBench}.
 */
public final class LabBenchCommand implements CliCommand {
    /** JVM options of the lab's hosts unless given: no -Xms, so that VmRSS grows with what the ranks use. */
    static final List<String> DEFAULT_LAB_HOST_JVM_ARGS = List.of("-Xmx1g", "-XX:+UseParallelGC");
    /** Largest loop count: every rank's total stays within the document's int at 256 ranks and beyond. */
    static final int MAX_ITERATIONS = 1000;

    @Override
    public String name() {
        return "bench lab";
    }

    @Override
    public String summary() {
        return "[--hosts 4] [--rate 1gbit] [--ranks 16,64,256] [--mediator-ranks 4,8] [--json] [--plot FILE.png] | --sites 2"
                + "  hosts in network namespaces on shaped links (root): scale, and direct vs mediator; or across NAT'd sites";
    }

    /** The parsed options. */
    record Options(boolean json, int hosts, String rate, List<Integer> ranks, int iterations, int repeat,
                   List<Integer> mediatorRanks, int kb, int mediatorIterations, int warmupSeconds, List<String> hostJvmArgs,
                   Path plot) {
        int doubles() {
            return kb * 1024 / 8;
        }
    }

    static final ArgumentSpec SPEC = ArgumentSpec.of("bench lab", "MPFL on real links: the engine and service hosts in"
            + " network namespaces of their own on a private bridge, every link shaped to --rate (needs root and iproute2).")
            .value("--hosts", "N", "4", "service hosts (at most 200)")
            .value("--rate", "RATE", "1gbit", "each link's rate in both directions (tc tbf), or none;"
                    + " with --sites the WAN links' rate, 100mbit unless given")
            .value("--ranks", "16,64,256", "16,64,256", "rank counts of part A (ring and allreduce loop)")
            .value("--iterations", "N", "100", "allreduces of part A's loop (at most " + MAX_ITERATIONS + ")")
            .value("--repeat", "N", "3", "measured runs per case")
            .value("--mediator-ranks", "4,8", "4,8", "rank counts of part B (bench mediator over the same links)")
            .value("--kb", "N", "200", "KiB each rank sends per round in part B")
            .value("--mediator-iterations", "N", "50", "rounds of part B's ring")
            .value("--warmup-seconds", "S", String.valueOf(MediatorBenchmark.DEFAULT_WARMUP_SECONDS), "untimed warm-up per case")
            .value("--sites", "N", "instead of parts A and B: N sites behind NAT gateways and a relay ("
                    + "the tests' NetworkLab, TLS): relay vs direct PingPong and heat2d with hierarchical vs flat collectives")
            .value("--hosts-per-site", "N", "2", "with --sites: hosts in each site")
            .value("--latency-iterations", "N", "300", "with --sites: PingPong N=1 round trips per run")
            .value("--bandwidth-iterations", "N", "10", "with --sites: PingPong N=500 round trips per run")
            .value("--heat2d-size", "N", "256", "with --sites: heat2d's plate is N x N cells")
            .value("--heat2d-iterations", "N", "200", "with --sites: heat2d's sweeps (no tolerance: exactly N)")
            .value("--flat-algorithm", "NAME", "recursive-doubling", "with --sites: heat2d's allreduce in the flat variant")
            .value("--samples", "DIR", "samples", "with --sites: the repository's samples directory (heat2d, its built jar)")
            .with(s -> BenchOptions.hostJvmArgs(s, DEFAULT_LAB_HOST_JVM_ARGS))
            .with(BenchOptions::output);

    /** Options of parts A and B only, which a --sites run would otherwise ignore without a word. */
    private static final List<String> PARTS_ONLY = List.of("--hosts", "--ranks", "--iterations", "--mediator-ranks", "--kb",
            "--mediator-iterations", "--warmup-seconds");
    /** Options of --sites only, which parts A and B would otherwise ignore without a word. */
    private static final List<String> SITES_ONLY = List.of("--hosts-per-site", "--latency-iterations", "--bandwidth-iterations",
            "--heat2d-size", "--heat2d-iterations", "--flat-algorithm", "--samples");

    /** Refuses options of the other mode: {@code --sites} runs another measurement than parts A and B. */
    static void refuseOtherModesOptions(Arguments a) throws UsageException {
        boolean sites = a.has("--sites");
        List<String> misplaced = (sites ? PARTS_ONLY : SITES_ONLY).stream().filter(a::has).toList();
        if (!misplaced.isEmpty()) {
            throw new UsageException(String.join(", ", misplaced) + (sites ? ": not with --sites (those are options of parts A and B)"
                    : ": only with --sites N (without it, bench lab measures parts A and B)"));
        }
    }

    static Options parse(List<String> args) throws UsageException {
        Arguments a = SPEC.parse(args);
        refuseOtherModesOptions(a);
        boolean json = a.flag("--json");
        int hosts = a.intAtLeast("--hosts", 1);
        String rate = a.value("--rate");
        List<Integer> ranks = a.intList("--ranks", 1);
        int iterations = a.intAtLeast("--iterations", 1);
        int repeat = a.intAtLeast("--repeat", 1);
        List<Integer> mediatorRanks = a.intList("--mediator-ranks", 1);
        int kb = a.intAtLeast("--kb", 1);
        int mediatorIterations = a.intAtLeast("--mediator-iterations", 1);
        int warmupSeconds = a.intAtLeast("--warmup-seconds", 0);
        List<String> hostJvmArgs = BenchOptions.hostJvmArgs(a, DEFAULT_LAB_HOST_JVM_ARGS);
        Path plot = a.path("--plot");
        if (hosts > 200) {
            throw new UsageException("--hosts: at most 200 hosts fit the lab's /24, got " + hosts);
        }
        if (rate.equals("none")) {
            rate = null;
        } else {
            try {
                LabNetwork.bitsPerSecond(rate);
            } catch (IllegalArgumentException e) {
                throw new UsageException("--rate " + rate + ": " + e.getMessage() + ", or none");
            }
        }
        if (ranks.stream().anyMatch(p -> p < 2)) {
            throw new UsageException("--ranks: the ring needs at least 2 ranks, got " + ranks);
        }
        if (iterations > MAX_ITERATIONS) {
            throw new UsageException("--iterations: at most " + MAX_ITERATIONS + ", got " + iterations);
        }
        return new Options(json, hosts, rate, ranks, iterations, repeat, mediatorRanks, kb, mediatorIterations, warmupSeconds,
                hostJvmArgs, plot);
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws Exception {
        if (SPEC.parse(args).has("--sites")) {
            refuseOtherModesOptions(SPEC.parse(args));
            SitesLabBench.Options sites = SitesLabBench.parse(SPEC.parse(args));
            String missing = LabNetwork.missing(true);
            if (missing != null) {
                err.println("mpflc bench lab --sites: needs " + missing + "; nothing was changed");
                return 1;
            }
            SitesLabBench.run(sites, out, err);
            return 0;
        }
        Options o = parse(args);
        String missing = LabNetwork.missing(o.rate() != null);
        if (missing != null) {
            err.println("mpflc bench lab: needs " + missing + "; nothing was changed");
            return 1;
        }
        Path work = Files.createTempDirectory("mpfl-bench-lab-");
        java.util.concurrent.atomic.AtomicReference<Process> measuring = new java.util.concurrent.atomic.AtomicReference<>();
        // a SIGTERM (timeout, Ctrl-C) runs no finally: the measurement is stopped so that it deletes its engine's store
        // and its hosts' logs (its own exit hook), then the plan here
        Thread atExit = new Thread(() -> {
            stop(measuring.get());
            FileTrees.deleteQuietly(work);
        }, "bench-lab-exit");
        Runtime.getRuntime().addShutdownHook(atExit);
        Process inside = null;
        try (LabNetwork lab = LabNetwork.create(o.hosts(), o.rate(), err)) {
            err.println("[bench lab] " + o.hosts() + " hosts and the engine in network namespaces " + lab.engine().netns()
                    .replaceAll("-eng$", "-*") + ", " + LabNetwork.SUBNET + "0/24, links "
                    + (o.rate() == null ? "not shaped" : "shaped to " + o.rate() + " (" + lab.qdisc(lab.engine()) + ")")
                    + " " + BenchCommands.load());
            Path plan = work.resolve("plan.json");
            LabInside.writePlan(plan, args, lab);
            List<String> cmd = LabInside.command(lab.engine(), plan);
            // the measurement's output and progress are this command's (copied to out and err); its stdin stays
            // a pipe of ours: it ends when that closes (this JVM gone, even by SIGKILL), and its hosts end with it
            inside = new ProcessBuilder(cmd).start();
            measuring.set(inside);
            Thread copyOut = copy(inside.getInputStream(), out, "bench-lab-out");
            Thread copyErr = copy(inside.getErrorStream(), err, "bench-lab-err");
            int code = inside.waitFor();
            copyOut.join();
            copyErr.join();
            if (code != 0) {
                throw new IOException("the measurement failed (exit " + code + "; its message is above)");
            }
            return 0;
        } finally {
            stop(inside);
            FileTrees.deleteQuietly(work);
            try {
                Runtime.getRuntime().removeShutdownHook(atExit);
            } catch (IllegalStateException exiting) {
                // the hook runs or ran
            }
        }
    }

    /** Ends the measurement's JVM, letting its exit hook clean up for up to 15 s. */
    private static void stop(Process inside) {
        if (inside == null || !inside.isAlive()) {
            return;
        }
        inside.destroy();
        try {
            if (!inside.waitFor(15, TimeUnit.SECONDS)) {
                inside.destroyForcibly();
            }
        } catch (InterruptedException e) {
            inside.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private static Thread copy(java.io.InputStream from, PrintStream to, String name) {
        Thread t = new Thread(() -> {
            try {
                from.transferTo(to);
            } catch (IOException e) {
                // the measurement ended
            }
            to.flush();
        }, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** The whole result as one JSON object (see the class comment). */
    static String toJson(Options o, List<ScaleBenchmark.Result> scale, List<MediatorBenchmark.Result> mediator) throws Exception {
        ObjectMapper json = new ObjectMapper();
        List<Map<String, Object>> rows = new ArrayList<>();
        for (ScaleBenchmark.Result r : scale) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("p", r.p());
            m.put("iterations", r.iterations());
            m.put("first_startup_ms", round(r.firstStartupMs()));
            m.put("startup_ms", round(r.startupMs()));
            m.put("run_ms", round(r.runMs()));
            m.put("loop_ms", round(r.loopMs()));
            m.put("kib_per_rank", round(r.kibPerRank()));
            m.put("first_kib_per_rank", round(r.firstKibPerRank()));
            m.put("host_rss_mib", round(r.hostRssMib()));
            m.put("repeats", r.repeats());
            rows.add(m);
        }
        Map<String, Object> all = new LinkedHashMap<>();
        all.put("hosts", o.hosts());
        all.put("rate", o.rate());
        all.put("scale", rows);
        all.put("mediator", json.readTree(MediatorBenchCommand.toJson(mediator)).path("results"));
        return json.writeValueAsString(all);
    }

    private static Double round(double v) {
        return Double.isFinite(v) ? Math.round(v * 10) / 10.0 : null;
    }

    static void printTable(Options o, List<ScaleBenchmark.Result> scale, List<MediatorBenchmark.Result> mediator, PrintStream out) {
        out.printf(java.util.Locale.ROOT, "Scale: %d hosts in network namespaces, links %s; ring + %d allreduces, ranks round robin"
                + " over the hosts; medians of %d runs after a first run%n", o.hosts(), o.rate() == null ? "not shaped" : o.rate(),
                o.iterations(), o.repeat());
        out.printf(java.util.Locale.ROOT, "%6s %16s %11s %9s %9s %13s %19s %13s%n", "ranks", "first_startup_ms", "startup_ms",
                "run_ms", "loop_ms", "kib_per_rank", "first_kib_per_rank", "host_rss_mib");
        for (ScaleBenchmark.Result r : scale) {
            out.printf(java.util.Locale.ROOT, "%6d %16.1f %11.1f %9.1f %9.1f %13.1f %19.1f %13.1f%n", r.p(), r.firstStartupMs(),
                    r.startupMs(), r.runMs(), r.loopMs(), r.kibPerRank(), r.firstKibPerRank(), r.hostRssMib());
        }
        out.println("startup_ms: run accepted until every rank runs (the engine's startupMs); run_ms: the run, creation to end;"
                + " loop_ms: ring and loop, barrier to barrier; kib_per_rank: peak VmRSS of a host during a run minus its VmRSS"
                + " before, per rank on it (mean over hosts); host_rss_mib: a host's VmRSS before a run (mean)");
        out.println();
        MediatorBenchCommand.printTable(mediator, out);
    }
}
