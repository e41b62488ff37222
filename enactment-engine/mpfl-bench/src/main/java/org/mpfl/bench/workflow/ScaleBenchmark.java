package org.mpfl.bench.workflow;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.mpfl.engine.cli.EngineClient;

/**
 * Many ranks on a few hosts ({@code mpflc bench lab}, part A): for every rank count p the
 * {@link #DOCUMENT} — a token once around a ring of p ranks, then a loop of allreduces — run through
 * the engine on the cluster's hosts. One untimed first run per p (it deploys the service), then
 * {@code repeats} timed runs whose medians are reported: the engine's start-up time (run accepted →
 * every rank running), the run's elapsed time, the document's own loop time, and the host memory per
 * rank: the peak VmRSS of each host process during the run (sampled every {@value #SAMPLE_MS} ms from
 * /proc/PID/status) minus its VmRSS just before, divided by the ranks placed on that host, averaged
 * over the hosts. Every run's ring token and every rank's allreduce total are checked: a wrong one fails
 * the benchmark.
 */
final class ScaleBenchmark {
    /** One rank count's figures (medians of the timed runs). */
    record Result(int p, int iterations, double firstStartupMs, double startupMs, double runMs, double loopMs,
                  double kibPerRank, double firstKibPerRank, double hostRssMib, int repeats) {
    }

    static final long SAMPLE_MS = 20;
    private static final Duration RUN_TIMEOUT = Duration.ofMinutes(10);

    /** Ring, then allreduce loop; rank 0 reports the token and the loop time, every rank its total. */
    static final String DOCUMENT = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!-- mpflc bench lab: a token once around a ring of p ranks, then a loop of allreduces (sum) -->
            <workflow xmlns="urn:mpfl:1.0" name="lab-scale" version="1">
              <param name="ranks" type="int" default="4"/>
              <param name="iterations" type="int" default="100"/>
              <process name="rank" ranks="ranks" service="LabScale">
                <var name="next" type="int" init="(rank + 1) % size"/>
                <var name="previous" type="int" init="(rank + size - 1) % size"/>
                <var name="token" type="int"/>
                <var name="total" type="int"/>
                <var name="sum" type="int" init="0"/>
                <var name="now" type="long"/>
                <var name="start" type="long"/>
                <barrier/>
                <compute class="org.mpfl.bench.mediator.exchange.ExchangeClock" out="now"/>
                <assign to="start" value="now"/>
                <if test="rank == 0">
                  <send to="next" data="0"/>
                  <receive from="previous" into="token"/>
                  <output name="token" value="token"/>
                <else>
                  <receive from="previous" into="token"/>
                  <send to="next" data="token + rank"/>
                </else>
                </if>
                <for var="i" from="0" to="iterations">
                  <allreduce data="rank + i" op="sum" into="total"/>
                  <assign to="sum" value="sum + total"/>
                </for>
                <barrier/>
                <compute class="org.mpfl.bench.mediator.exchange.ExchangeClock" out="now"/>
                <output name="sum" value="sum"/>
                <if test="rank == 0">
                  <output name="loop_ms" value="double(now - start) / 1000.0"/>
                </if>
              </process>
            </workflow>
            """;

    private final List<Integer> ranks;
    private final int iterations;
    private final int repeats;
    private final PrintStream progress;
    private final String label;

    ScaleBenchmark(List<Integer> ranks, int iterations, int repeats, PrintStream progress, String label) {
        this.ranks = ranks;
        this.iterations = iterations;
        this.repeats = repeats;
        this.progress = progress;
        this.label = label;
    }

    /** The ring token rank 0 must get back: 0 + 1 + … + (p − 1). */
    static long expectedToken(int p) {
        return (long) p * (p - 1) / 2;
    }

    /** Every rank's total over the loop: Σ_i Σ_r (r + i). */
    static long expectedSum(int p, int iterations) {
        return (long) iterations * expectedToken(p) + (long) p * iterations * (iterations - 1) / 2;
    }

    List<Result> run(BenchCluster cluster, Path work) throws Exception {
        Path document = work.resolve("lab-scale.mpfl.xml");
        Files.writeString(document, DOCUMENT, StandardCharsets.UTF_8);
        EngineClient client = cluster.client();
        List<Result> results = new ArrayList<>();
        for (int p : ranks) {
            if (p < 2) {
                throw new IllegalArgumentException("the ring needs at least 2 ranks, got " + p);
            }
            progress.printf(Locale.ROOT, "%s p=%d: first run (deploys the service) %s%n", label, p, BenchCommands.load());
            Measured first = once(cluster, client, document, p);
            progress.printf(Locale.ROOT, "%s p=%d: first run: start-up %.0f ms, run %.0f ms, %.0f KiB per rank%n", label, p,
                    first.startupMs(), first.runMs(), first.kibPerRank());
            List<Measured> timed = new ArrayList<>();
            for (int rep = 1; rep <= repeats; rep++) {
                Measured m = once(cluster, client, document, p);
                progress.printf(Locale.ROOT, "%s p=%d (%d/%d): start-up %.0f ms, run %.0f ms (loop %.0f ms), %.0f KiB per rank %s%n",
                        label, p, rep, repeats, m.startupMs(), m.runMs(), m.loopMs(), m.kibPerRank(), BenchCommands.load());
                timed.add(m);
            }
            results.add(new Result(p, iterations, first.startupMs(),
                    BenchCommands.median(timed.stream().map(Measured::startupMs).toList()),
                    BenchCommands.median(timed.stream().map(Measured::runMs).toList()),
                    BenchCommands.median(timed.stream().map(Measured::loopMs).toList()),
                    BenchCommands.median(timed.stream().map(Measured::kibPerRank).toList()), first.kibPerRank(),
                    BenchCommands.median(timed.stream().map(Measured::hostRssMib).toList()), timed.size()));
        }
        return results;
    }

    /** One checked run: start-up, elapsed and loop ms, KiB per rank, mean host VmRSS (MiB) before the run. */
    private record Measured(double startupMs, double runMs, double loopMs, double kibPerRank, double hostRssMib) {
    }

    private Measured once(BenchCluster cluster, EngineClient client, Path document, int p) throws Exception {
        List<Long> pids = cluster.hostPids();
        long[] before = new long[pids.size()];
        long[] peak = new long[pids.size()];
        for (int h = 0; h < pids.size(); h++) {
            before[h] = vmRssKib(pids.get(h));
            peak[h] = before[h];
        }
        AtomicBoolean running = new AtomicBoolean(true);
        Thread sampler = new Thread(() -> {
            while (running.get()) {
                for (int h = 0; h < pids.size(); h++) {
                    try {
                        peak[h] = Math.max(peak[h], vmRssKib(pids.get(h)));
                    } catch (IOException e) {
                        // a host that ended makes the run fail; the run says why
                    }
                }
                try {
                    Thread.sleep(SAMPLE_MS);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "lab-rss-sampler");
        sampler.setDaemon(true);
        sampler.start();
        JsonNode run;
        try {
            run = DocumentRuns.run(client, document, Map.of("ranks", Integer.toString(p), "iterations", Integer.toString(iterations)),
                    RUN_TIMEOUT);
        } finally {
            running.set(false);
            sampler.join();
        }
        String what = "p=" + p;
        if (!run.path("state").asText().equals("SUCCEEDED")) {
            throw new IOException(what + ": " + DocumentRuns.describeFailure(run));
        }
        check(run, p);
        run = StartupBenchmark.withStartup(client, run, what);
        Map<String, Integer> onHost = new HashMap<>();
        run.path("ranks").forEach(r -> onHost.merge(r.path("host").asText(), 1, Integer::sum));
        List<String> ids = cluster.hostIds();
        double perRank = 0;
        int used = 0;
        double rss = 0;
        for (int h = 0; h < ids.size(); h++) {
            rss += before[h] / 1024.0 / ids.size();
            Integer n = onHost.get(ids.get(h));
            if (n != null && n > 0) {
                perRank += (double) (peak[h] - before[h]) / n;
                used++;
            }
        }
        return new Measured(run.path("startupMs").asDouble(), run.path("elapsedMs").asDouble(),
                DocumentRuns.output(run, "loop_ms", 0).asDouble(Double.NaN), used == 0 ? Double.NaN : perRank / used, rss);
    }

    /** The ring token and every rank's allreduce total, against what they must be. */
    private void check(JsonNode run, int p) throws IOException {
        JsonNode token = DocumentRuns.output(run, "token", 0);
        if (!token.canConvertToLong() || token.asLong() != expectedToken(p)) {
            throw new IOException("p=" + p + ": the ring token came back to rank 0 as " + token + ", expected " + expectedToken(p)
                    + " (run " + run.path("id").asText() + ")");
        }
        long want = expectedSum(p, iterations);
        for (int r = 0; r < p; r++) {
            JsonNode sum = DocumentRuns.output(run, "sum", r);
            if (!sum.canConvertToLong() || sum.asLong() != want) {
                throw new IOException("p=" + p + ": rank " + r + "'s allreduce total is " + sum + ", expected " + want
                        + " (run " + run.path("id").asText() + ")");
            }
        }
    }

    /** VmRSS of a process in KiB, from /proc/PID/status. */
    static long vmRssKib(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.substring(6).strip().split("\\s+")[0]);
            }
        }
        throw new IOException("no VmRSS in /proc/" + pid + "/status");
    }
}
