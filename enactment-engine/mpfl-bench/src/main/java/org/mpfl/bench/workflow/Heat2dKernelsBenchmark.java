package org.mpfl.bench.workflow;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.mpfl.engine.cli.EngineClient;
import org.mpfl.ir.files.FileTrees;

/**
 * heat2d with its Jacobi sweep in NumPy ({@code samples/heat2d-py}) against heat2d in Java
 * ({@code samples/heat2d}), per iteration, on one engine and its service-host processes
 * ({@code mpflc bench kernels --heat2d}). An iteration's time is the difference of a long and a short
 * run divided by their difference in iterations, so that neither run's fixed part (placement,
 * deployment, start-up — for heat2d-py four interpreters importing NumPy — the end) counts. Both
 * documents run with {@code tolerance=0}, so each does exactly the iterations it is given.
 *
 * <p>The two variants are measured side by side: a round runs both short runs, then both long runs,
 * the variants' order swapped from round to round, so that a change of the machine's load between a
 * round's runs falls on both variants alike rather than on one (on 2 shared cores, the load of other
 * processes moves by several times within a minute). Each round gives one pair of figures; the command
 * reports the round whose ratio is the median, and every round's ratio. An untimed long run of each comes
 * first (deployment, and JIT of the messaging both share and of heat2d's Java sweep: with only a short
 * run first, the Java variant was still getting faster from round to round — 6.1, 1.1, 1.4 ms — which
 * counted against heat2d-py in the first round).
 *
 * <p>Beside the difference of the runs, each long run's trace gives the steady iteration inside the run
 * and the median of each operation ({@link Heat2dPhases}): what a Python call costs on the critical path
 * against the Java sweep, apart from the interpreters' start-up, whose noise falls on the difference.
 */
final class Heat2dKernelsBenchmark {
    private static final Duration RUN_TIMEOUT = Duration.ofMinutes(10);
    private static final String JAVA = "heat2d.java";
    private static final String PYTHON = "heat2d.python";

    /**
     * One round's ms per iteration of heat2d (Java) and of heat2d-py, measured side by side, with where the
     * long runs' iterations went (null when a trace could not be read).
     */
    record Round(double java, double python, Heat2dPhases javaPhases, Heat2dPhases pythonPhases) {
    }

    /** A run's client time and its ID. */
    private record Timed(double ms, String id) {
    }

    private Heat2dKernelsBenchmark() {
    }

    /**
     * @param samples the repository's {@code samples} directory (heat2d's activity jar must be built)
     * @param python  the interpreter of the Python ranks (with NumPy)
     * @return one figure pair per round, in the order run
     */
    static List<Round> rounds(Path samples, String python, int hosts, int size, int ranks, int shortIter,
                              int longIter, int repeats, PrintStream progress) throws Exception {
        Path javaDoc = samples.resolve("heat2d/heat2d.mpfl.xml");
        Path pythonDoc = samples.resolve("heat2d-py/heat2d-py.mpfl.xml");
        for (Path doc : List.of(javaDoc, pythonDoc)) {
            if (!Files.isRegularFile(doc)) {
                throw new IOException(doc + " is missing: run the bench from the repository's top directory (or give --samples DIR)");
            }
        }
        if (!Files.isRegularFile(samples.resolve("target/mpfl-samples.jar"))) {
            throw new IOException("heat2d's activity code " + samples.resolve("target/mpfl-samples.jar")
                    + " is missing: build the samples first (mvn -q -pl samples -am package -DskipTests)");
        }
        Map<String, Path> docs = Map.of(JAVA, javaDoc, PYTHON, pythonDoc);
        Path work = Files.createTempDirectory("mpfl-bench-heat2d-");
        try {
            progress.println("[bench kernels] heat2d: starting an engine and " + hosts + " service hosts (" + python + ")");
            try (BenchCluster cluster = BenchCluster.start(work.resolve("engine"), hosts, 0, List.of("-Dmpfl.kernel.python=" + python))) {
                EngineClient client = cluster.client();
                for (String variant : List.of(JAVA, PYTHON)) { // deployment and JIT, untimed, alike for both
                    progress.printf(java.util.Locale.ROOT, "[bench kernels] warm-up %s: %d iterations %.0f ms%n",
                            variant, longIter, timed(client, docs.get(variant), size, ranks, longIter).ms());
                }
                List<Round> rounds = new ArrayList<>();
                for (int rep = 1; rep <= repeats; rep++) {
                    List<String> order = rep % 2 == 1 ? List.of(JAVA, PYTHON) : List.of(PYTHON, JAVA);
                    Map<String, Double> shortMs = new LinkedHashMap<>();
                    for (String variant : order) {
                        shortMs.put(variant, timed(client, docs.get(variant), size, ranks, shortIter).ms());
                    }
                    Map<String, Double> perIter = new LinkedHashMap<>();
                    Map<String, Heat2dPhases> phases = new LinkedHashMap<>();
                    for (String variant : order) {
                        Timed longRun = timed(client, docs.get(variant), size, ranks, longIter);
                        double ms = (longRun.ms() - shortMs.get(variant)) / (longIter - shortIter);
                        perIter.put(variant, ms);
                        Heat2dPhases p = phases(client, longRun.id(), shortIter);
                        phases.put(variant, p);
                        progress.printf(java.util.Locale.ROOT, "[bench kernels] round %d %s: %d iterations %.0f ms, %d iterations %.0f ms: %.3f ms per iteration; %s%n",
                                rep, variant, shortIter, shortMs.get(variant), longIter, longRun.ms(), ms,
                                p == null ? "no trace" : p.describe());
                    }
                    rounds.add(new Round(perIter.get(JAVA), perIter.get(PYTHON), phases.get(JAVA), phases.get(PYTHON)));
                }
                return rounds;
            }
        } finally {
            FileTrees.deleteQuietly(work);
        }
    }

    /** The phases of a run from its trace, its first {@code skip} iterations left out; null if the trace cannot be read. */
    private static Heat2dPhases phases(EngineClient client, String id, int skip) {
        try {
            return Heat2dPhases.of(client.get("/api/runs/" + id + "/trace"), skip);
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private static Timed timed(EngineClient client, Path doc, int size, int ranks, int iterations) throws Exception {
        DocumentRuns.Ended ended = DocumentRuns.run(client, doc, Map.of("rows", Integer.toString(size), "columns", Integer.toString(size),
                "ranks", Integer.toString(ranks), "tolerance", "0", "maxIter", Integer.toString(iterations)),
                RUN_TIMEOUT, 20);
        JsonNode run = ended.run();
        if (!run.path("state").asText().equals("SUCCEEDED")) {
            throw new IOException(doc.getFileName() + ": " + DocumentRuns.describeFailure(run));
        }
        JsonNode done = DocumentRuns.output(run, "iterations", 0);
        if (done.isMissingNode() || done.asInt() != iterations) {
            throw new IOException(doc.getFileName() + " did " + done + " iterations, not the " + iterations + " asked for");
        }
        return new Timed(ended.clientMs(), run.path("id").asText());
    }
}
