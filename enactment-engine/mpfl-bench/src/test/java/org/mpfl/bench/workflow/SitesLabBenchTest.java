package org.mpfl.bench.workflow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mpfl.ir.cli.Commands;
import org.mpfl.ir.cli.UsageException;
import org.mpfl.ir.files.FileTrees;
import org.mpfl.testing.StartsProcesses;
import org.mpfl.testing.lab.NetworkLab;

/**
 * {@code mpflc bench lab --sites 2} at small counts, through mpflc's dispatch: the lab of the tests with
 * 2 sites × 2 hosts behind NAT and a relay (and the direct variant), the isolation asserted, both
 * tables with their ratios, heat2d's hierarchical and flat runs with equal results and exactly the
 * inter-site messages the two allreduces differ by, a plot; afterwards no namespace of this JVM's labs.
 * Without root it refuses with a message and exit 1. The run at small counts took 193 s at load 17 on
 * the 2-core machine (two labs of JVMs over TLS), hence the class's time-out of 900 s. heat2d's activity
 * code is compiled once for the class (the documents' test and the run both read it).
 */
@Timeout(900)
@StartsProcesses
class SitesLabBenchTest {
    private static final Path SAMPLES = Path.of("..", "..", "samples");
    /** heat2d's activity classes, compiled here: the samples jar is built after this module. */
    private static final List<String> HEAT2D_CLASSES = List.of("org/mpfl/samples/heat2d/SetupPlate",
            "org/mpfl/samples/heat2d/JacobiSweep", "org/mpfl/samples/heat2d/Plate", "org/mpfl/samples/common/Inputs");
    private static final Pattern HEAT2D_ROW = Pattern.compile("(?m)^(hierarchical|flat)\\s+(\\S+)\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(\\S+)$");
    /** A samples directory with heat2d's document and its compiled activity code, shared by the class's tests. */
    static Path samples;

    @BeforeAll
    static void compileHeat2d() throws IOException {
        samples = samplesWithHeat2dJar();
    }

    @AfterAll
    static void deleteSamples() {
        if (samples != null) {
            FileTrees.deleteQuietly(samples);
        }
    }

    @Test
    void options() throws Exception {
        SitesLabBench.Options d = SitesLabBench.parse(LabBenchCommand.SPEC.parse(List.of("--sites", "2")));
        assertEquals(2, d.sites());
        assertEquals(2, d.hostsPerSite());
        assertEquals(4, d.ranks());
        assertEquals("s1,s2", d.siteList());
        assertEquals("100mbit", d.rate(), "with --sites the WAN rate is 100mbit unless given");
        assertEquals("recursive-doubling", d.flatAlgorithm());
        assertEquals(3, d.rounds());
        assertNull(d.plot());
        SitesLabBench.Options o = SitesLabBench.parse(LabBenchCommand.SPEC.parse(List.of("--sites", "3", "--hosts-per-site", "1",
                "--rate", "1gbit", "--flat-algorithm", "ring", "--repeat", "1", "--heat2d-size", "8")));
        assertEquals("s1,s2,s3", o.siteList());
        assertEquals("1gbit", o.rate());
        assertEquals("ring", o.flatAlgorithm());
        assertEquals(8, o.heat2dSize());
        for (List<String> bad : List.of(List.of("--sites", "1"), List.of("--sites", "2", "--rate", "fast"),
                List.of("--sites", "2", "--flat-algorithm", "auto"), List.of("--sites", "2", "--flat-algorithm", "hierarchical"),
                List.of("--sites", "2", "--json"), List.of("--sites", "10"))) {
            assertThrows(UsageException.class, () -> SitesLabBench.parse(LabBenchCommand.SPEC.parse(bad)), bad.toString());
        }
    }

    /** The flat variant's document names its allreduce's algorithm; the library points at the built jar. */
    @Test
    void heat2dDocuments() throws Exception {
        Path dir = samples;
        Path written = Files.createTempDirectory("mpfl-bench-sites-documents-");
        try {
            String flat = Files.readString(SitesLabBench.heat2dDocument(dir, written.resolve("f.xml"), "ring"));
            String auto = Files.readString(SitesLabBench.heat2dDocument(dir, written.resolve("a.xml"), null));
            assertTrue(flat.contains("op=\"max\" into=\"residual\" algorithm=\"ring\"/>"), flat);
            assertFalse(auto.contains("algorithm="), auto);
            assertTrue(auto.contains("<library path=\"" + dir.resolve("target/mpfl-samples.jar").toAbsolutePath().normalize() + "\"/>"));
            IOException missing = assertThrows(IOException.class,
                    () -> SitesLabBench.heat2dDocument(dir.resolve("nowhere"), written.resolve("x.xml"), null));
            assertTrue(missing.getMessage().contains("--samples"), missing.getMessage());
        } finally {
            FileTrees.deleteQuietly(written);
        }
    }

    /**
     * Without root the command refuses before making anything: {@code mpflc} in a user namespace of its own
     * ({@code unshare --user}, where it is uid 65534 without capabilities), exit 1 and a message saying what is missing.
     */
    @Test
    void refusesWithoutRootAndChangesNothing() throws Exception {
        // no performance-data file: HotSpot would make /tmp/hsperfdata_nobody for it (whatever java.io.tmpdir says) and leave it
        List<String> cmd = List.of("unshare", "--user", Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-XX:-UsePerfData", "-cp",
                System.getProperty("java.class.path"), "org.mpfl.engine.cli.Mpflc", "bench", "lab", "--sites", "2");
        Path log = Files.createTempFile("mpfl-bench-sites-noroot-", ".log");
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            p.getOutputStream().close();
            // a JVM start and one uid check: 120 s is ample even at load 40 on 2 cores
            boolean ended = p.waitFor(120, java.util.concurrent.TimeUnit.SECONDS);
            if (!ended) {
                p.destroyForcibly().waitFor(10, java.util.concurrent.TimeUnit.SECONDS);
            }
            String output = Files.readString(log);
            assertTrue(ended, "mpflc did not end within 120 s: " + output);
            assertEquals(1, p.exitValue(), output);
            assertTrue(output.contains("mpflc bench lab --sites: needs root") && output.contains("nothing was changed"), output);
        } finally {
            Files.deleteIfExists(log);
        }
    }

    @Test
    void twoSitesAtSmallCounts() throws Exception {
        String missing = LabNetwork.missing(true);
        if (missing != null) {
            String message = "mpflc bench lab --sites needs " + missing + "; set " + NetworkLab.SKIP_ENV + "=1 to skip this where"
                    + " that is impossible";
            Assumptions.assumeFalse("1".equals(System.getenv(NetworkLab.SKIP_ENV)), message);
            fail(message);
        }
        Path plotDir = Files.createTempDirectory("mpfl-bench-sites-plot-");
        try {
            Path png = plotDir.resolve("sites.png");
            // 8 sweeps show the per-sweep WAN difference as well as 20 did; 6 latency round trips still give a median
            int iterations = 8;
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int code = Commands.run(List.of("bench", "lab", "--sites", "2", "--repeat", "1", "--latency-iterations", "6",
                    "--bandwidth-iterations", "2", "--heat2d-size", "32", "--heat2d-iterations", Integer.toString(iterations),
                    "--samples", samples.toString(), "--plot", png.toString()),
                    new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
            String progress = err.toString(StandardCharsets.UTF_8);
            String table = out.toString(StandardCharsets.UTF_8);
            System.out.println(progress + "\n" + table); // the figures at small counts, in the Failsafe report
            assertEquals(0, code, progress + "\n" + table);
            assertTrue(progress.contains("sites isolated"), "the isolation is asserted before measuring:\n" + progress);
            for (String row : List.of("relay ", "direct ", "relay overhead N=1: ", "bandwidth N=500 relay/direct: ",
                    "flat/hierarchical: wall ", "results equal: yes")) {
                assertTrue(table.contains(row), row + " in\n" + table);
            }
            assertTrue(Pattern.compile("(?m)^relay\\s+\\d+\\s+\\d+\\s+\\d+\\s+[\\d.]+\\s+\\S").matcher(table).find(), table);
            assertTrue(Pattern.compile("bandwidth N=500 relay/direct: \\d+\\.\\d\\d \\(target >= 0.90: (met|missed)\\)").matcher(table)
                    .find(), table);
            long[] hierarchical = heat2dRow(table, "hierarchical");
            long[] flat = heat2dRow(table, "flat");
            assertEquals(iterations, hierarchical[2], table);
            assertEquals(iterations, flat[2], table);
            // the loop's one allreduce over 4 ranks, 2 per site: hierarchical crosses once each way (2 messages), recursive
            // doubling's second step pairs 0-2 and 1-3 (4 messages); the halo exchange is the same in both
            assertEquals(2L * iterations, flat[1] - hierarchical[1], "WAN messages, flat - hierarchical:\n" + table);
            byte[] head = java.util.Arrays.copyOf(Files.readAllBytes(png), 4);
            assertEquals("PNG", new String(head, 1, 3, StandardCharsets.US_ASCII));
            String prefix = NetworkLab.PREFIX + ProcessHandle.current().pid() + "-";
            String left = new String(new ProcessBuilder("ip", "netns", "list").redirectErrorStream(true).start().getInputStream()
                    .readAllBytes(), StandardCharsets.UTF_8);
            assertFalse(left.contains(prefix), "namespaces left behind:\n" + left);
        } finally {
            FileTrees.deleteQuietly(plotDir);
        }
    }

    /** wall_ms, wan_messages, iterations of a heat2d row of the table. */
    private static long[] heat2dRow(String table, String variant) {
        Matcher m = HEAT2D_ROW.matcher(table);
        while (m.find()) {
            if (m.group(1).equals(variant)) {
                return new long[] {Long.parseLong(m.group(3)), Long.parseLong(m.group(4)), Long.parseLong(m.group(6))};
            }
        }
        throw new AssertionError("no heat2d row " + variant + " in\n" + table);
    }

    /**
     * A samples directory as the command expects it: heat2d's document, and its activity code compiled
     * from the samples' sources into {@code target/mpfl-samples.jar}.
     */
    static Path samplesWithHeat2dJar() throws IOException {
        Path dir = Files.createTempDirectory("mpfl-bench-sites-samples-");
        Files.createDirectories(dir.resolve("heat2d"));
        Files.copy(SAMPLES.resolve("heat2d/heat2d.mpfl.xml"), dir.resolve("heat2d/heat2d.mpfl.xml"));
        Path classes = Files.createDirectories(dir.resolve("classes"));
        List<String> args = new ArrayList<>(List.of("-d", classes.toString(), "--release", "17", "-cp",
                System.getProperty("java.class.path")));
        for (String c : HEAT2D_CLASSES) {
            args.add(SAMPLES.resolve("src/main/java").resolve(c + ".java").toString());
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
        assertEquals(0, javac.run(null, diagnostics, diagnostics, args.toArray(String[]::new)), diagnostics.toString());
        Files.createDirectories(dir.resolve("target"));
        try (OutputStream file = Files.newOutputStream(dir.resolve("target/mpfl-samples.jar"));
             JarOutputStream jar = new JarOutputStream(file); Stream<Path> walk = Files.walk(classes)) {
            for (Path p : walk.filter(Files::isRegularFile).toList()) {
                jar.putNextEntry(new JarEntry(classes.relativize(p).toString().replace('\\', '/')));
                Files.copy(p, jar);
                jar.closeEntry();
            }
        }
        return dir;
    }
}
