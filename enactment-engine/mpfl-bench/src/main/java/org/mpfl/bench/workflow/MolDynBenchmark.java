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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.mpfl.engine.cli.EngineClient;
import org.mpfl.ir.files.FileTrees;

/**
 * Runs the MolDyn sample through an embedded engine on local service-host processes for every size,
 * rank count and allreduce algorithm, and reads its outputs (ek, total_s, comm_s). The document is
 * used as it is, except for two rewrites into a private copy: its library path is made absolute, and
 * for an algorithm other than {@code auto} the force allreduce names it — {@code serial} replaces the
 * allreduce by a serial reduce to rank 0 and a serial broadcast (the paper's "serial allReduce").
 * Before a variant is measured it runs once untimed ({@link #warmUp}); then every rank count is run
 * {@code repeats} times, the rank counts taking turns, and the run with the median total time is
 * reported with the range. One rank is run with every variant (no collective algorithm is involved,
 * so they are the same program); the median of all of them is the speed-up's base. Every run's ek
 * is validated.
 */
final class MolDynBenchmark {
    /** The JGF references of ek after 50 moves. */
    static final Map<Integer, Double> REFERENCE_EK = Map.of(8, 1731.4306625334357, 13, 7397.392307839352);
    private static final Pattern ALLREDUCE = Pattern.compile(
            "<allreduce\\s+data=\"partialForces\"\\s+op=\"sum\"\\s+into=\"forces\"\\s*/>");
    private static final Pattern LIBRARY = Pattern.compile("<library\\s+path=\"([^\"]+)\"\\s*/>");

    /** One measured case. */
    record Result(int mm, int p, String algorithm, int particles, double totalS, double commS, double ek,
                  double deviation, String validation, double speedup, double runMs,
                  int runs, int failedRuns, double minS, double maxS) {
        /** One run. */
        Result(int mm, int p, String algorithm, int particles, double totalS, double commS, double ek,
               double deviation, String validation, double speedup, double runMs) {
            this(mm, p, algorithm, particles, totalS, commS, ek, deviation, validation, speedup, runMs,
                    1, validation.equals("FAIL") ? 1 : 0, totalS, totalS);
        }

        /** The median run of {@code runs} (same case), as {@code algorithm}, with the speed-up over {@code base} seconds. */
        static Result of(List<Result> runs, String algorithm, double base) {
            Result m = BenchCommands.medianRun(runs, Result::totalS);
            int failed = (int) runs.stream().filter(r -> r.validation().equals("FAIL")).count();
            String validation = failed > 0 ? "FAIL"
                    : runs.stream().map(Result::validation).filter(v -> !v.equals("pass_abs_1e-12")).findFirst().orElse(m.validation());
            return new Result(m.mm(), m.p(), algorithm, m.particles(), m.totalS(), m.commS(), m.ek(), m.deviation(), validation,
                    base / m.totalS(), m.runMs(), runs.size(), failed,
                    runs.stream().mapToDouble(Result::totalS).min().orElse(Double.NaN),
                    runs.stream().mapToDouble(Result::totalS).max().orElse(Double.NaN));
        }

        double commShare() {
            return totalS > 0 ? commS / totalS : Double.NaN;
        }
    }

    private final Path document;
    private final List<Integer> sizes;
    private final List<Integer> ranks;
    private final List<String> algorithms;
    private final int moves;
    private final int hosts;
    private final int capacity;
    private final List<String> hostJvmArgs;
    private Duration runTimeout = Duration.ofMinutes(30);
    private int warmupMoves = 5;
    private int warmupSeconds = 10;
    private int repeats = 3;
    private final PrintStream progress;

    /** @param capacity ranks per host before the placement moves on (0: the hosts' default, their core count) */
    MolDynBenchmark(Path document, List<Integer> sizes, List<Integer> ranks, List<String> algorithms, int moves, int hosts,
                    int capacity, List<String> hostJvmArgs, PrintStream progress) {
        this.capacity = capacity;
        this.hostJvmArgs = hostJvmArgs;
        this.document = document;
        this.sizes = sizes;
        this.ranks = ranks;
        this.algorithms = algorithms;
        this.moves = moves;
        this.hosts = hosts;
        this.progress = progress;
    }

    /** Bounds each run (it is cancelled and the benchmark fails after it). */
    MolDynBenchmark runTimeout(Duration d) {
        this.runTimeout = d;
        return this;
    }

    /** Moves of the untimed warm-up run before each variant is measured (0: none). */
    MolDynBenchmark warmupMoves(int moves) {
        this.warmupMoves = moves;
        return this;
    }

    /** Untimed warm-up runs of each variant go on for at least this long (at least one run). */
    MolDynBenchmark warmupSeconds(int seconds) {
        this.warmupSeconds = seconds;
        return this;
    }

    /** Timed runs of every case; the median is reported. */
    MolDynBenchmark repeats(int r) {
        this.repeats = r;
        return this;
    }

    /** The document with its library made absolute and the force allreduce using {@code algorithm}. */
    static String variant(String text, Path documentDir, String algorithm) throws IOException {
        Matcher lib = LIBRARY.matcher(text);
        StringBuilder sb = new StringBuilder();
        while (lib.find()) {
            Path jar = documentDir.resolve(lib.group(1)).toAbsolutePath().normalize();
            if (!Files.isRegularFile(jar)) {
                throw new IOException("the MolDyn activity code " + jar + " is missing: build the samples first"
                        + " (mvn -q -o -pl samples -am package -DskipTests)");
            }
            lib.appendReplacement(sb, Matcher.quoteReplacement("<library path=\"" + jar + "\"/>"));
        }
        lib.appendTail(sb);
        String out = sb.toString();
        if (algorithm.equals("auto")) {
            return out;
        }
        Matcher m = ALLREDUCE.matcher(out);
        if (!m.find()) {
            throw new IOException("the MolDyn document has no <allreduce data=\"partialForces\" op=\"sum\" into=\"forces\"/>"
                    + " to choose the algorithm of");
        }
        String replacement = algorithm.equals("serial")
                ? "<reduce root=\"0\" data=\"partialForces\" op=\"sum\" into=\"forces\" algorithm=\"serial\"/>"
                    + "<broadcast root=\"0\" var=\"forces\" algorithm=\"serial\"/>"
                : "<allreduce data=\"partialForces\" op=\"sum\" into=\"forces\" algorithm=\"" + algorithm + "\"/>";
        return m.replaceFirst(Matcher.quoteReplacement(replacement));
    }

    /** JGF's criterion (1e-12 absolute), else 1e-8 relative, else FAIL; {@code no_reference} without one. */
    static String validation(int mm, int movesRun, double ek) {
        Double ref = REFERENCE_EK.get(mm);
        if (ref == null || movesRun != 50) {
            return "no_reference";
        }
        double dev = Math.abs(ek - ref);
        return dev <= 1e-12 ? "pass_abs_1e-12" : dev <= 1e-8 * ref ? "pass_rel_1e-8" : "FAIL";
    }

    List<Result> run() throws Exception {
        Path work = Files.createTempDirectory("mpfl-bench-moldyn-");
        try {
            String text = Files.readString(document, StandardCharsets.UTF_8);
            Path dir = document.toAbsolutePath().getParent();
            progress.println("[bench moldyn] starting an engine and " + hosts + " service hosts");
            try (BenchCluster cluster = BenchCluster.start(work.resolve("engine"), hosts, capacity, hostJvmArgs)) {
                EngineClient client = cluster.client();
                List<Result> results = new ArrayList<>();
                for (int mm : sizes) {
                    List<Result> oneRank = new ArrayList<>();
                    Map<String, Map<Integer, List<Result>>> multi = new java.util.LinkedHashMap<>();
                    for (String algorithm : algorithms) {
                        warmUp(client, work, text, dir, mm, algorithm);
                        Map<Integer, List<Result>> byP = multi.computeIfAbsent(algorithm, a -> new java.util.TreeMap<>());
                        for (int rep = 1; rep <= repeats; rep++) {
                            for (int p : ranks) {
                                Result r = measure(client, work, text, dir, mm, p, algorithm, rep);
                                (p == 1 ? oneRank : byP.computeIfAbsent(p, k -> new ArrayList<>())).add(r);
                            }
                        }
                    }
                    double base = oneRank.isEmpty() ? Double.NaN
                            : BenchCommands.median(oneRank.stream().map(Result::totalS).toList());
                    if (!oneRank.isEmpty()) {
                        results.add(Result.of(oneRank, "-", base));
                    }
                    multi.forEach((algorithm, byP) -> byP.forEach((p, runs) -> results.add(Result.of(runs, algorithm, base))));
                }
                return results;
            }
        } finally {
            FileTrees.deleteQuietly(work);
        }
    }

    /**
     * Untimed runs of a variant before it is measured, with the largest p, for {@code warmupSeconds}:
     * each variant is its own generated service, which the engine (re)deploys when it changes, so its
     * activity code starts cold in fresh class loaders; and the engine and the hosts keep JIT-compiling
     * for the first ~10 s of runs (code that runs once per run), on the cores the ranks need. Without
     * this the first measured cases of every variant — the one-rank base of the speed-up among them —
     * would carry class loading and compilation.
     */
    private void warmUp(EngineClient client, Path work, String text, Path dir, int mm, String algorithm) throws Exception {
        if (warmupMoves == 0) {
            return;
        }
        int p = ranks.stream().mapToInt(Integer::intValue).max().orElse(1);
        Path doc = variantFile(work, text, dir, algorithm);
        progress.printf(Locale.ROOT, "[bench moldyn] warm-up mm=%d p=%d allreduce %s: runs of %d moves for %d s (untimed)%n", mm, p,
                algorithm, warmupMoves, warmupSeconds);
        int runs = BenchCommands.repeatFor(warmupSeconds, () -> {
            JsonNode run = DocumentRuns.run(client, doc, Map.of("mm", Integer.toString(mm), "ranks", Integer.toString(p),
                    "moves", Integer.toString(warmupMoves)), runTimeout);
            if (!run.path("state").asText().equals("SUCCEEDED")) {
                throw new IOException("MolDyn warm-up mm=" + mm + " p=" + p + " (" + algorithm + "): " + DocumentRuns.describeFailure(run));
            }
        });
        progress.printf(Locale.ROOT, "[bench moldyn]   warm-up done, %d runs%n", runs);
    }

    private static Path variantFile(Path work, String text, Path dir, String algorithm) throws IOException {
        Path doc = work.resolve("moldyn-" + algorithm + ".mpfl.xml");
        if (!Files.exists(doc)) {
            Files.writeString(doc, variant(text, dir, algorithm), StandardCharsets.UTF_8);
        }
        return doc;
    }

    private Result measure(EngineClient client, Path work, String text, Path dir, int mm, int p, String algorithm, int rep)
            throws Exception {
        Path doc = variantFile(work, text, dir, algorithm);
        progress.printf(Locale.ROOT, "[bench moldyn] mm=%d p=%d allreduce %s (%d/%d) %s%n", mm, p, algorithm, rep, repeats,
                BenchCommands.load());
        JsonNode run = DocumentRuns.run(client, doc, Map.of("mm", Integer.toString(mm), "ranks", Integer.toString(p),
                "moves", Integer.toString(moves)), runTimeout);
        if (!run.path("state").asText().equals("SUCCEEDED")) {
            throw new IOException("MolDyn mm=" + mm + " p=" + p + " (" + algorithm + "): " + DocumentRuns.describeFailure(run));
        }
        double ek = DocumentRuns.output(run, "ek", 0).asDouble(Double.NaN);
        double total = DocumentRuns.output(run, "total_s", 0).asDouble(Double.NaN);
        double comm = DocumentRuns.output(run, "comm_s", 0).asDouble(Double.NaN);
        int particles = DocumentRuns.output(run, "particles", 0).asInt();
        Double ref = REFERENCE_EK.get(mm);
        double dev = ref == null || moves != 50 ? Double.NaN : Math.abs(ek - ref);
        Result r = new Result(mm, p, algorithm, particles, total, comm, ek, dev, validation(mm, moves, ek), Double.NaN,
                run.path("elapsedMs").asDouble());
        progress.printf(Locale.ROOT, "[bench moldyn]   total %.3f s, comm %.3f s (%.0f %%), ek %s (%s)%n", total, comm,
                100 * r.commShare(), ek, r.validation());
        return r;
    }
}
