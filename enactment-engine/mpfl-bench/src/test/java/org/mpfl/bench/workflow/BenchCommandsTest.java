package org.mpfl.bench.workflow;

import org.mpfl.ir.cli.Commands;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mpfl.ir.cli.UsageException;
import org.mpfl.ir.files.FileTrees;
import org.mpfl.testing.StartsProcesses;

/** Options, JSON shapes and the document rewriting of {@code mpflc bench mediator} and {@code mpflc bench moldyn}. */
@Timeout(240)
class BenchCommandsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void mediatorOptions() throws Exception {
        MediatorBenchCommand.Options d = MediatorBenchCommand.parse(List.of());
        assertEquals(List.of(2, 4, 8), d.ranks());
        assertEquals(50, d.iterations());
        assertEquals(200, d.kb());
        assertEquals(25_600, d.doubles());
        assertEquals(1, d.capacity());
        assertEquals(BenchCommands.DEFAULT_HOST_JVM_ARGS, d.hostJvmArgs());
        MediatorBenchCommand.Options o = MediatorBenchCommand.parse(List.of("--json", "--ranks", "2,4", "--iterations", "3",
                "--kb", "8", "--host-jvm-arg", "-Xmx512m"));
        assertTrue(o.json());
        assertEquals(null, o.plot());
        assertEquals("auto", o.transport());
        assertEquals("soap", MediatorBenchCommand.parse(List.of("--transport", "soap")).transport());
        assertThrows(UsageException.class, () -> MediatorBenchCommand.parse(List.of("--transport", "carrier-pigeon")));
        assertEquals(List.of(2, 4), o.ranks());
        assertEquals(3, o.iterations());
        assertEquals(1024, o.doubles());
        assertEquals(List.of("-Xmx512m"), o.hostJvmArgs());
        assertThrows(UsageException.class, () -> MediatorBenchCommand.parse(List.of("--ranks", "2,x")));
        assertThrows(UsageException.class, () -> MediatorBenchCommand.parse(List.of("--iterations", "0")));
        assertThrows(UsageException.class, () -> MediatorBenchCommand.parse(List.of("--kb")));
        assertThrows(UsageException.class, () -> MediatorBenchCommand.parse(List.of("--bogus")));
        assertEquals(3, d.repeat());
        assertEquals(15, d.warmupSeconds());
        assertEquals(5, MediatorBenchCommand.parse(List.of("--repeat", "5")).repeat());
        assertEquals(0, MediatorBenchCommand.parse(List.of("--warmup-seconds", "0")).warmupSeconds());
        assertThrows(UsageException.class, () -> MediatorBenchCommand.parse(List.of("--repeat", "0")));
    }

    @Test
    void medianOfRepeatedRuns() {
        assertEquals(3.0, BenchCommands.median(List.of(9.0, 3.0, 1.0)));
        assertEquals(2.0, BenchCommands.median(List.of(4.0, 2.0, 1.0, 3.0)), "the lower middle one for an even count");
        assertTrue(Double.isNaN(BenchCommands.median(List.of())));
        assertEquals("bb", BenchCommands.medianRun(List.of("ccc", "a", "bb"), String::length));
    }

    /** A MolDyn row is its median run; the range and the validation cover every run. */
    @Test
    void moldynRowIsTheMedianRun() {
        List<MolDynBenchmark.Result> runs = List.of(
                new MolDynBenchmark.Result(13, 2, "binomial", 8788, 4.8, 0.4, 7397.1, 0.0, "pass_abs_1e-12", Double.NaN, 5000),
                new MolDynBenchmark.Result(13, 2, "binomial", 8788, 4.2, 0.2, 7397.2, 0.0, "pass_rel_1e-8", Double.NaN, 4400),
                new MolDynBenchmark.Result(13, 2, "binomial", 8788, 4.4, 0.3, 7397.3, 0.0, "pass_abs_1e-12", Double.NaN, 4600));
        MolDynBenchmark.Result row = MolDynBenchmark.Result.of(runs, "binomial", 7.92);
        assertEquals(4.4, row.totalS());
        assertEquals(0.3, row.commS(), "the median run's own figures come with it");
        assertEquals(7397.3, row.ek());
        assertEquals(1.8, row.speedup(), 1e-12);
        assertEquals(4.2, row.minS());
        assertEquals(4.8, row.maxS());
        assertEquals(3, row.runs());
        assertEquals("pass_rel_1e-8", row.validation(), "the weakest validation of all runs");
        List<MolDynBenchmark.Result> withFailure = new java.util.ArrayList<>(runs);
        withFailure.add(new MolDynBenchmark.Result(13, 2, "binomial", 8788, 4.3, 0.3, 1.0, 7396.0, "FAIL", Double.NaN, 4500));
        MolDynBenchmark.Result failed = MolDynBenchmark.Result.of(withFailure, "binomial", 7.92);
        assertEquals("FAIL", failed.validation(), "one failing run fails the row, even if the median run passed");
        assertEquals(1, failed.failedRuns());
        assertTrue(MolDynBenchCommand.targets(List.of(failed)).get(0).contains("NOT met in 3 of 4 runs"),
                MolDynBenchCommand.targets(List.of(failed)).toString());
    }

    @Test
    void moldynOptions() throws Exception {
        MolDynBenchCommand.Options d = MolDynBenchCommand.parse(List.of());
        assertEquals(List.of(8, 13), d.sizes());
        assertEquals(List.of(1, 2, 4), d.ranks());
        assertEquals(List.of("auto", "serial", "binomial"), d.algorithms());
        assertEquals(50, d.moves());
        assertFalse(d.withMpj());
        assertEquals(5, d.warmupMoves());
        assertEquals(0, MolDynBenchCommand.parse(List.of("--warmup-moves", "0")).warmupMoves());
        assertEquals(3, d.repeat());
        assertEquals(1, MolDynBenchCommand.parse(List.of("--repeat", "1")).repeat());
        assertEquals(10, d.warmupSeconds());
        assertEquals(0, MolDynBenchCommand.parse(List.of("--warmup-seconds", "0")).warmupSeconds());
        assertTrue(d.document().endsWith(Path.of("samples", "moldyn", "moldyn.mpfl.xml")));
        MolDynBenchCommand.Options o = MolDynBenchCommand.parse(List.of("--json", "--mm", "8", "--ranks", "1,2",
                "--algorithms", "serial,recursive-doubling", "--with-mpj", "--mpj-results", "/tmp/x", "--peers", "/tmp/peers"));
        assertEquals(List.of(8), o.sizes());
        assertEquals(List.of("serial", "recursive-doubling"), o.algorithms());
        assertTrue(o.withMpj());
        assertEquals(Path.of("/tmp/x"), o.mpjResults());
        assertEquals(Path.of("/tmp/peers"), o.peers());
        assertThrows(UsageException.class, () -> MolDynBenchCommand.parse(List.of("--algorithms", ",")));
        assertThrows(UsageException.class, () -> MolDynBenchCommand.parse(List.of("--mm", "-1")));
    }

    /** A tiny real run through mpflc's dispatch (bench → "bench mediator"): one JSON object of the documented shape. */
    @Test
    @StartsProcesses
    void mediatorJsonOnATinyRun() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Commands.run(List.of("bench", "mediator", "--json", "--ranks", "2", "--iterations", "2", "--kb", "1", "--warmup-seconds", "1",
                "--host-jvm-arg", "-Xmx256m"), new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(0, code, err.toString(StandardCharsets.UTF_8));
        String text = out.toString(StandardCharsets.UTF_8).trim();
        JsonNode all = JSON.readTree(text);
        assertEquals(1, all.size(), text);
        JsonNode results = all.get("results");
        assertEquals(1, results.size(), text);
        JsonNode r = results.get(0);
        assertEquals(2, r.get("p").asInt());
        assertEquals(2, r.get("iterations").asInt());
        assertEquals(3, r.get("repeats").asInt());
        assertTrue(r.get("direct_min_ms").asDouble() <= r.get("direct_ms").asDouble()
                && r.get("direct_ms").asDouble() <= r.get("direct_max_ms").asDouble(), text);
        assertEquals(1024, r.get("bytes").asLong());
        assertTrue(r.get("direct_ms").asDouble() > 0 && r.get("mediator_ms").asDouble() > 0, text);
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("[bench mediator] p=2"), "progress goes to stderr");
    }

    @Test
    void moldynJsonShape() throws Exception {
        List<MolDynBenchmark.Result> results = List.of(
                new MolDynBenchmark.Result(8, 1, "-", 2048, 2.0, 0.0, 1731.4306625334357, 0.0, "pass_abs_1e-12", 1.0, 2500),
                new MolDynBenchmark.Result(8, 2, "serial", 2048, 1.25, 0.125, 1731.430662533435, 6.8e-13, "pass_abs_1e-12", 1.6, 1800));
        List<MpjMolDyn.Row> mpj = List.of(new MpjMolDyn.Row("niodev", 2, 8, 0.596, 0.254, 1731.430662533435, 6.82e-13, "pass_abs_1e-12"));
        JsonNode all = JSON.readTree(MolDynBenchCommand.toJson(results, mpj, "test"));
        JsonNode r = all.get("results").get(1);
        for (String k : List.of("mm", "p", "algorithm", "particles", "total_s", "comm_s", "comm_share", "ek", "ek_deviation",
                "validation", "speedup", "run_ms", "repeats", "total_s_min", "total_s_max", "failed_runs")) {
            assertTrue(r.has(k), k);
        }
        assertEquals(0.1, r.get("comm_share").asDouble(), 1e-12);
        assertEquals("niodev", all.get("mpj").get("rows").get(0).get("device").asText());
        ByteArrayOutputStream table = new ByteArrayOutputStream();
        MolDynBenchCommand.printTables(results, mpj, "test", new PrintStream(table, true, StandardCharsets.UTF_8));
        assertTrue(table.toString(StandardCharsets.UTF_8).contains("0.596"), "MPJ Express side by side");
    }

    /** Both plots are drawn by the runtime's BenchPlot (headless) from results. */
    @Test
    void plotsAreWritten() throws Exception {
        Path dir = Files.createTempDirectory("mpfl-bench-plots-");
        try {
            Path m = dir.resolve("mediator.png");
            MediatorBenchCommand.plot(List.of(new MediatorBenchmark.Result(2, 50, 204800, 900, 1500, 600),
                    new MediatorBenchmark.Result(4, 50, 204800, 1200, 4800, 900)), m);
            Path d = dir.resolve("moldyn.png");
            MolDynBenchCommand.plot(List.of(
                    new MolDynBenchmark.Result(13, 1, "-", 8788, 8.0, 0.0, 7397.392307839352, 0.0, "pass_abs_1e-12", 1.0, 9000),
                    new MolDynBenchmark.Result(13, 2, "auto", 8788, 4.2, 0.3, 7397.392307839351, 9e-13, "pass_abs_1e-12", 1.9, 5000)),
                    List.of(new MpjMolDyn.Row("niodev", 2, 13, 4.274, 0.403, 7397.392307839351, 9.1e-13, "pass_abs_1e-12")), d);
            for (Path png : List.of(m, d)) {
                byte[] head = java.util.Arrays.copyOf(Files.readAllBytes(png), 4);
                assertEquals("PNG", new String(head, 1, 3, StandardCharsets.US_ASCII), png.toString());
            }
        } finally {
            FileTrees.deleteQuietly(dir);
        }
    }

    /**
     * {@code bench kernels --plot}: the calls' panel alone, and beside it the heat2d rounds' panel when {@code --heat2d}
     * ran (BenchPlot draws a panel 700 pixels wide); both from figures, as the command collects them.
     */
    @Test
    void kernelsPlotHasTheHeat2dPanelOnlyWhenHeat2dRan() throws Exception {
        java.util.Map<String, Double> figures = new java.util.LinkedHashMap<>();
        String[] kinds = {"empty", "inPlace", "newArray"};
        double[][] us = {{40, 0.1, 0.1}, {1500, 600, 400}, {2500, 900, 800}};
        for (int k = 0; k < kinds.length; k++) {
            figures.put(kinds[k] + ".worker", us[k][0]);
            figures.put(kinds[k] + ".java", us[k][1]);
            figures.put(kinds[k] + ".python", us[k][2]);
        }
        Path dir = Files.createTempDirectory("mpfl-bench-kernels-plot-");
        try {
            Path calls = dir.resolve("calls.png");
            KernelsBenchCommand.plot(figures, 1_000_000, "64 × 64 plate, 4 ranks", calls);
            figures.put("sweep.numpy", 12.0);
            figures.put("heat2d.ratio", 1.61);
            for (int r = 1; r <= 3; r++) {
                figures.put("heat2d.round" + r + ".java", 0.85);
                figures.put("heat2d.round" + r + ".python", 1.2 + 0.2 * r);
                figures.put("heat2d.round" + r + ".ratio", r == 2 ? 1.61 : 1.3 * r);
            }
            Path both = dir.resolve("both.png");
            KernelsBenchCommand.plot(figures, 1_000_000, "64 × 64 plate, 4 ranks", both);
            java.awt.image.BufferedImage one = javax.imageio.ImageIO.read(calls.toFile());
            java.awt.image.BufferedImage two = javax.imageio.ImageIO.read(both.toFile());
            assertEquals(700, one.getWidth(), "one panel");
            assertEquals(1400, two.getWidth(), "the calls' and heat2d's panels side by side");
            assertTrue(one.getHeight() > 0 && two.getHeight() == one.getHeight());
        } finally {
            FileTrees.deleteQuietly(dir);
        }
    }

    @Test
    void validationFollowsTheBenchmarksCriteria() {
        assertEquals("pass_abs_1e-12", MolDynBenchmark.validation(8, 50, 1731.4306625334357 + 9e-13));
        assertEquals("pass_rel_1e-8", MolDynBenchmark.validation(13, 50, 7397.392307839352 + 5.5e-12));
        assertEquals("FAIL", MolDynBenchmark.validation(13, 50, 7397.39));
        assertEquals("no_reference", MolDynBenchmark.validation(8, 10, 1.0));
        assertEquals("no_reference", MolDynBenchmark.validation(4, 50, 1.0));
    }

    /** The MolDyn variants: library made absolute; serial = serial reduce + serial broadcast; others name the algorithm. */
    @Test
    void moldynDocumentVariants() throws Exception {
        Path root = Files.createTempDirectory("mpfl-moldyn-variant-");
        try {
            Path docDir = Files.createDirectories(root.resolve("moldyn"));
            Path jar = Files.createDirectories(root.resolve("target")).resolve("mpfl-samples.jar");
            Files.write(jar, new byte[0]);
            String text = "<workflow><library path=\"../target/mpfl-samples.jar\"/>\n"
                    + "<allreduce data=\"partialForces\" op=\"sum\" into=\"forces\"/></workflow>";
            String auto = MolDynBenchmark.variant(text, docDir, "auto");
            assertTrue(auto.contains("<library path=\"" + jar.toAbsolutePath().normalize() + "\"/>"), auto);
            assertTrue(auto.contains("<allreduce data=\"partialForces\" op=\"sum\" into=\"forces\"/>"), auto);
            String serial = MolDynBenchmark.variant(text, docDir, "serial");
            assertTrue(serial.contains("<reduce root=\"0\" data=\"partialForces\" op=\"sum\" into=\"forces\" algorithm=\"serial\"/>"
                    + "<broadcast root=\"0\" var=\"forces\" algorithm=\"serial\"/>"), serial);
            assertFalse(serial.contains("<allreduce"), serial);
            assertTrue(MolDynBenchmark.variant(text, docDir, "binomial").contains("algorithm=\"binomial\""));
            Files.delete(jar);
            assertThrows(java.io.IOException.class, () -> MolDynBenchmark.variant(text, docDir, "auto"));
        } finally {
            FileTrees.deleteQuietly(root);
        }
    }

    /** The real sample still has the allreduce the variants rewrite. */
    @Test
    void theMolDynSampleHasTheRewrittenAllreduce() throws Exception {
        Path sample = Path.of("..", "samples", "moldyn", "moldyn.mpfl.xml");
        if (Files.isRegularFile(sample)) {
            assertTrue(Files.readString(sample).contains("<allreduce data=\"partialForces\" op=\"sum\" into=\"forces\"/>"));
        }
    }
}
