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
 * deployment, start-up, the end) counts. Both documents run with {@code tolerance=0}, so each does
 * exactly the iterations it is given. The runs alternate Java and Python, and the median of
 * {@code repeats} differences is reported; an untimed short run of each comes first (deployment, JIT).
 */
final class Heat2dKernelsBenchmark {
    private static final Duration RUN_TIMEOUT = Duration.ofMinutes(10);

    private Heat2dKernelsBenchmark() {
    }

    /**
     * @param samples the repository's {@code samples} directory (heat2d's activity jar must be built)
     * @param python  the interpreter of the Python ranks (with NumPy)
     * @return {@code heat2d.java} and {@code heat2d.python}: median ms per iteration
     */
    static Map<String, Double> perIteration(Path samples, String python, int hosts, int size, int ranks, int shortIter,
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
        Path work = Files.createTempDirectory("mpfl-bench-heat2d-");
        try {
            progress.println("[bench kernels] heat2d: starting an engine and " + hosts + " service hosts (" + python + ")");
            try (BenchCluster cluster = BenchCluster.start(work.resolve("engine"), hosts, 0, List.of("-Dmpfl.kernel.python=" + python))) {
                EngineClient client = cluster.client();
                Map<String, List<Double>> perIter = new LinkedHashMap<>();
                for (int rep = 0; rep <= repeats; rep++) { // round 0 warms both up (deployment, JIT), untimed
                    for (Map.Entry<String, Path> variant : Map.of("heat2d.java", javaDoc, "heat2d.python", pythonDoc).entrySet()) {
                        double shortMs = timed(client, variant.getValue(), size, ranks, shortIter);
                        if (rep == 0) { // the short run deploys and warms up as well as both would
                            progress.printf(java.util.Locale.ROOT, "[bench kernels] warm-up %s: %d iterations %.0f ms%n",
                                    variant.getKey(), shortIter, shortMs);
                            continue;
                        }
                        double longMs = timed(client, variant.getValue(), size, ranks, longIter);
                        double ms = (longMs - shortMs) / (longIter - shortIter);
                        perIter.computeIfAbsent(variant.getKey(), k -> new ArrayList<>()).add(ms);
                        progress.printf(java.util.Locale.ROOT, "[bench kernels] round %d %s: %d iterations %.0f ms, %d iterations %.0f ms: %.3f ms per iteration%n",
                                rep, variant.getKey(), shortIter, shortMs, longIter, longMs, ms);
                    }
                }
                Map<String, Double> medians = new LinkedHashMap<>();
                perIter.forEach((k, v) -> medians.put(k, BenchCommands.median(v)));
                return medians;
            }
        } finally {
            FileTrees.deleteQuietly(work);
        }
    }

    private static double timed(EngineClient client, Path doc, int size, int ranks, int iterations) throws Exception {
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
        return ended.clientMs();
    }
}
