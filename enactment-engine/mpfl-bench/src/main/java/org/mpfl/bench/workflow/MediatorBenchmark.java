package org.mpfl.bench.workflow;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.mpfl.bench.mediator.Mediator;
import org.mpfl.bench.mediator.exchange.AllgatherExchange;
import org.mpfl.ir.spi.WorkflowCompiler;
import org.mpfl.engine.cli.EngineClient;
import org.mpfl.ir.files.FileTrees;

/**
 * Direct messaging against the mediator on the same workflow and the same hosts: an embedded engine
 * with {@code hosts} local service-host processes ({@link BenchCluster}); for every p, the exchange document
 * ({@link AllgatherExchange#DOCUMENT}) run through the engine (ranks allgather their blocks directly),
 * then the same rounds enacted by the engine's {@link Mediator} (the engine relays every block), with
 * the same rank-to-host placement (the engine's; round robin with capacity 1). For every p both modes
 * are first run untimed, taking turns, each with the timed iteration count, for {@code warmupSeconds}
 * (archive deployment and JIT compilation in the engine and the hosts: a cold first run of either mode took
 * 2–5× longer than the steady state, and {@code jstat -compiler} on a host showed its compiler busy for the
 * first ~10 s of runs, a third of the 2-core machine — much of the code runs once per run), then
 * {@code repeats} times each, alternating direct and mediated; the medians are reported with the range.
 * Every timed pair must end with the same checksums on every rank, or the case fails.
 */
final class MediatorBenchmark {
    /** One measured case. */
    record Result(int p, int iterations, long bytes, double directMs, double mediatorMs, double directLoopMs,
                  int repeats, double directMinMs, double directMaxMs, double mediatorMinMs, double mediatorMaxMs) {
        /** One run of each mode. */
        Result(int p, int iterations, long bytes, double directMs, double mediatorMs, double directLoopMs) {
            this(p, iterations, bytes, directMs, mediatorMs, directLoopMs, 1, directMs, directMs, mediatorMs, mediatorMs);
        }

        double ratio() {
            return mediatorMs / directMs;
        }
    }

    /** Seconds of untimed runs (both modes taking turns) per p by default; see the class comment. */
    static final int DEFAULT_WARMUP_SECONDS = 15;
    private static final Duration RUN_TIMEOUT = Duration.ofMinutes(15);
    private static final Duration CALL_TIMEOUT = Duration.ofMinutes(2);

    private final List<Integer> ranks;
    private final int iterations;
    private final int doubles;
    private final int hosts;
    private final int capacity;
    private final List<String> hostJvmArgs;
    private final PrintStream progress;
    private String transport = "auto";
    private int repeats = 3;
    private int warmupSeconds = DEFAULT_WARMUP_SECONDS;
    private String label = "[bench mediator]";

    /** @param capacity ranks per host before the placement moves on (0: the hosts' default, their core count) */
    MediatorBenchmark(List<Integer> ranks, int iterations, int doubles, int hosts, int capacity, List<String> hostJvmArgs,
                      PrintStream progress) {
        this.capacity = capacity;
        this.hostJvmArgs = hostJvmArgs;
        this.ranks = ranks;
        this.iterations = iterations;
        this.doubles = doubles;
        this.hosts = hosts;
        this.progress = progress;
    }

    /** The transport of the direct runs' ranks ({@code auto} by default; {@code soap}: every message over SOAP/MTOM). */
    MediatorBenchmark transport(String t) {
        this.transport = t;
        return this;
    }

    /** Timed runs of each mode per p; the medians are reported. */
    MediatorBenchmark repeats(int r) {
        this.repeats = r;
        return this;
    }

    /** How progress lines begin ({@code [bench mediator]} by default). */
    MediatorBenchmark label(String l) {
        this.label = l;
        return this;
    }

    /** Seconds of untimed runs of both modes per p before the timed ones (0: none). */
    MediatorBenchmark warmupSeconds(int s) {
        this.warmupSeconds = s;
        return this;
    }

    List<Result> run() throws Exception {
        Path work = Files.createTempDirectory("mpfl-bench-mediator-");
        try {
            progress.println(label + " starting an engine and " + hosts + " service hosts");
            try (BenchCluster cluster = BenchCluster.start(work.resolve("engine"), hosts, capacity, hostJvmArgs, transport)) {
                return run(cluster, work);
            }
        } finally {
            FileTrees.deleteQuietly(work);
        }
    }

    /**
     * The measurement on a running {@code cluster} (its engine's transport and its hosts' capacity are
     * the caller's; {@code mpflc bench lab} passes hosts in network namespaces of their own); the
     * document goes to {@code work}.
     */
    List<Result> run(BenchCluster cluster, Path work) throws Exception {
        Path document = work.resolve("exchange.mpfl.xml");
        Files.writeString(document, AllgatherExchange.document(), StandardCharsets.UTF_8);
        try (Mediator mediator = new Mediator(CALL_TIMEOUT, cluster.stepAuthorizations())) {
            EngineClient client = cluster.client();
            List<Result> results = new ArrayList<>();
            for (int p : ranks) {
                List<String> services = Mediator.placeRanks(cluster.engine().registry(), p);
                if (warmupSeconds > 0) {
                    progress.printf(Locale.ROOT, label + " p=%d: warm-up, %d s of untimed runs of both modes %s%n", p,
                            warmupSeconds, BenchCommands.load());
                    int runs = BenchCommands.repeatFor(warmupSeconds, () -> {
                        direct(client, document, p, iterations);
                        mediated(mediator, services, p, iterations);
                    });
                    progress.printf(Locale.ROOT, label + " p=%d: warm-up done, %d runs of each mode%n", p, runs);
                }
                List<Timed> directRuns = new ArrayList<>();
                List<Timed> mediatedRuns = new ArrayList<>();
                for (int rep = 1; rep <= repeats; rep++) {
                    progress.printf(Locale.ROOT, label + " p=%d (%d/%d): direct messaging, %d iterations %s%n", p, rep,
                            repeats, iterations, BenchCommands.load());
                    Timed direct = direct(client, document, p, iterations);
                    progress.printf(Locale.ROOT, label + " p=%d (%d/%d): direct %.0f ms (loop %.0f ms); mediator%n", p, rep,
                            repeats, direct.ms(), direct.loopMs());
                    Timed mediated = mediated(mediator, services, p, iterations);
                    progress.printf(Locale.ROOT, label + " p=%d (%d/%d): mediator %.0f ms (%.2fx)%n", p, rep, repeats,
                            mediated.ms(), mediated.ms() / direct.ms());
                    sameChecksums(p, direct, mediated);
                    directRuns.add(direct);
                    mediatedRuns.add(mediated);
                }
                results.add(summary(p, directRuns, mediatedRuns));
            }
            return results;
        }
    }

    private static void sameChecksums(int p, Timed direct, Timed mediated) throws IOException {
        for (int r = 0; r < p; r++) {
            if (Double.compare(direct.checksums()[r], mediated.checksums()[r]) != 0) {
                throw new IOException("p=" + p + ": rank " + r + " ends with checksum " + direct.checksums()[r]
                        + " under direct messaging but " + mediated.checksums()[r] + " under the mediator");
            }
        }
    }

    private Result summary(int p, List<Timed> direct, List<Timed> mediated) {
        List<Double> d = direct.stream().map(Timed::ms).toList();
        List<Double> m = mediated.stream().map(Timed::ms).toList();
        return new Result(p, iterations, 8L * doubles, BenchCommands.median(d), BenchCommands.median(m),
                BenchCommands.median(direct.stream().map(Timed::loopMs).toList()), d.size(),
                java.util.Collections.min(d), java.util.Collections.max(d), java.util.Collections.min(m), java.util.Collections.max(m));
    }

    /** A timed run and every rank's final checksum. */
    private record Timed(double ms, double[] checksums, double loopMs) {
    }

    private Timed direct(EngineClient client, Path document, int p, int iters)
            throws IOException, InterruptedException, WorkflowCompiler.CompileException {
        JsonNode run = DocumentRuns.run(client, document, Map.of("ranks", Integer.toString(p),
                "iterations", Integer.toString(iters), "doubles", Integer.toString(doubles)), RUN_TIMEOUT);
        if (!run.path("state").asText().equals("SUCCEEDED")) {
            throw new IOException("direct messaging, p=" + p + ": " + DocumentRuns.describeFailure(run));
        }
        double[] sums = new double[p];
        for (int r = 0; r < p; r++) {
            JsonNode v = DocumentRuns.output(run, "checksum", r);
            if (!v.isNumber()) {
                throw new IOException("direct messaging, p=" + p + ": rank " + r + " reported no checksum");
            }
            sums[r] = v.asDouble();
        }
        // the engine's own account of the run: from its creation (placement, domain, run fan-out) to its end
        return new Timed(run.path("elapsedMs").asDouble(), sums, DocumentRuns.output(run, "loop_ms", 0).asDouble(Double.NaN));
    }

    private Timed mediated(Mediator mediator, List<String> services, int p, int iters) throws IOException, InterruptedException {
        AllgatherExchange w = new AllgatherExchange(p, iters, doubles);
        long nanos = mediator.run(w, services, null);
        return new Timed(nanos / 1e6, w.checksums(), nanos / 1e6);
    }
}
