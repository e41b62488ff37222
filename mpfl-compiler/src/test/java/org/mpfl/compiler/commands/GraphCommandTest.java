package org.mpfl.compiler.commands;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.testing.MpflcCall;
import org.mpfl.testing.StartsProcesses;

/**
 * {@code mpflc graph} over the samples: the DOT has a node per process with its rank count and exactly
 * the message flows and collectives the symbolic run finds; {@code -o x.svg} renders with Graphviz.
 */
class GraphCommandTest {
    static final Path SAMPLES = Path.of("../samples").toAbsolutePath().normalize();

    static MpflcCall mpflc(String... args) {
        return MpflcCall.run(args);
    }

    /**
     * A sample's document, copied next to an empty {@code target/mpfl-samples.jar}: the samples module
     * that builds the real library comes after the compiler in the build, and the picture needs only
     * that the library exists, not its classes.
     */
    static String sample(String name) {
        try {
            Path dir = Files.createDirectories(SAMPLE_COPIES.resolve(name));
            Path jar = SAMPLE_COPIES.resolve("target/mpfl-samples.jar");
            if (!Files.exists(jar)) {
                Files.createDirectories(jar.getParent());
                try (var out = new java.util.jar.JarOutputStream(Files.newOutputStream(jar))) {
                    out.putNextEntry(new java.util.jar.JarEntry("META-INF/"));
                    out.closeEntry();
                }
            }
            Path doc = dir.resolve(name + ".mpfl.xml");
            Files.copy(SAMPLES.resolve(name + "/" + name + ".mpfl.xml"), doc, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            return doc.toString();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static final Path SAMPLE_COPIES = Path.of("target/graph-samples").toAbsolutePath();

    /** The label of edge {@code from -> to} (the first one), or null. */
    static String edge(String dot, String from, String to) {
        Matcher m = Pattern.compile(Pattern.quote("\"p:" + from + "\" -> \"p:" + to + "\"") + " \\[[^]]*label=\"([^\"]*)\"").matcher(dot);
        return m.find() ? m.group(1) : null;
    }

    @Test
    void ringIsOneProcessSendingToItselfOncePerRank() {
        MpflcCall r = mpflc("graph", sample("ring"), "--param", "ranks=5");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().startsWith("digraph \"ring\" {"), r.out());
        assertTrue(r.out().contains("\"p:node\" [shape=box") && r.out().contains("node\\n5 ranks\\nservice RingNode"), r.out());
        // rank 0's send (line 21) once, ranks 1..4's send (line 30) four times
        assertEquals("send ×1 at ring.mpfl.xml:21:7\\nsend ×4 at ring.mpfl.xml:30:7", edge(r.out(), "node", "node"), r.out());
        assertTrue(!r.out().contains("shape=ellipse"), "no collectives in a ring: " + r.out());
    }

    @Test
    void couplingHasMessagesBothWaysBetweenTwoProcesses() {
        MpflcCall r = mpflc("graph", sample("coupling"));
        assertEquals(0, r.exit(), r.err());
        assertTrue(edge(r.out(), "steel", "copper") != null, r.out());
        assertTrue(edge(r.out(), "copper", "steel") != null, r.out());
        assertTrue(edge(r.out(), "steel", "steel") == null, "no message stays within a one-rank process: " + r.out());
    }

    @Test
    void heat2dHasHaloExchangesAndAnAllreduceOverTheGrid() throws Exception {
        MpflcCall r = mpflc("graph", sample("heat2d"));
        assertEquals(0, r.exit(), r.err());
        String halo = edge(r.out(), "solver", "solver");
        // where the sample's four <sendrecv> and its <while> are (the sample changes; the picture must follow)
        java.util.List<String> lines = Files.readAllLines(Path.of(sample("heat2d")));
        java.util.List<String> shifts = new java.util.ArrayList<>();
        String loop = null;
        for (int i = 0; i < lines.size(); i++) {
            int col = lines.get(i).indexOf("<sendrecv");
            if (col >= 0) {
                shifts.add("sendrecv ×2 (grid) at heat2d.mpfl.xml:" + (i + 1) + ":" + (col + 1));
            }
            if (loop == null && lines.get(i).contains("<while")) {
                loop = "heat2d.mpfl.xml:" + (i + 1) + ":" + (lines.get(i).indexOf("<while") + 1);
            }
        }
        assertEquals(4, shifts.size(), "the sample has four halo shifts");
        assertEquals(String.join("\\n", shifts), halo, "each of the four shifts of a 2×2 grid: " + r.out());
        // the loop runs until a computed residual is small: counted once, and the picture says so
        assertTrue(r.out().contains("partial: " + loop + ": the communication after this <while> depends on run-time data"), r.out());
        assertTrue(r.err().contains("mpflc graph: note: " + loop), r.err());
        assertTrue(r.out().contains("allreduce ×"), r.out());
        assertTrue(r.out().contains("comm grid"), r.out());
        assertTrue(r.out().contains("\"p:solver\" -> \"c:0\" [dir=none"), r.out());
    }

    @Test
    @StartsProcesses
    void svgThroughGraphvizAndDotToAFile(@TempDir Path dir) throws Exception {
        Path svg = dir.resolve("ring.svg");
        MpflcCall r = mpflc("graph", sample("ring"), "-o", svg.toString());
        assertEquals(0, r.exit(), r.err() + "  (SVG needs Graphviz: apt-get install graphviz)");
        String text = Files.readString(svg);
        assertTrue(text.contains("<svg") && text.contains(">node</text>"), text);
        Path dot = dir.resolve("ring.dot");
        assertEquals(0, mpflc("graph", sample("ring"), "-o", dot.toString()).exit());
        assertTrue(Files.readString(dot).startsWith("digraph"));
    }

    /** The check's warnings are printed as check prints them, not dropped: the picture alone does not show an endless loop. */
    @Test
    void theChecksWarningsComeWithThePicture(@TempDir Path dir) throws Exception {
        Path endless = dir.resolve("endless.mpfl.xml");
        Files.writeString(endless, "<workflow xmlns=\"urn:mpfl:1.0\" name=\"e\">\n<process name=\"p\" ranks=\"2\">\n"
                + "<var name=\"x\" type=\"int\"/>\n<while test=\"rank lt 2\"><assign to=\"x\" value=\"x + 1\"/></while>\n"
                + "</process>\n</workflow>\n");
        MpflcCall r = mpflc("graph", endless.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().startsWith("digraph"), r.out());
        assertTrue(r.err().contains("endless.mpfl.xml:4:1: warning: <while> never ends once entered")
                && r.err().contains("0 errors, 1 warning"), r.err());
    }

    @Test
    void badInputIsAClearError(@TempDir Path dir) throws Exception {
        MpflcCall png = mpflc("graph", sample("ring"), "-o", dir.resolve("x.png").toString());
        assertEquals(2, png.exit());
        assertTrue(png.err().contains("-o wants a file ending in .svg, .dot or .gv (DOT), got "), png.err()); // .gv is taken too
        MpflcCall missing = mpflc("graph", dir.resolve("none.mpfl.xml").toString());
        assertEquals(1, missing.exit());
        assertTrue(missing.err().contains("no such file"), missing.err());
        Path broken = dir.resolve("broken.mpfl.xml");
        Files.writeString(broken, "<workflow xmlns=\"urn:mpfl:1.0\" name=\"b\"><process name=\"p\" ranks=\"2\"><send to=\"nowhere\" data=\"1\"/></process></workflow>");
        MpflcCall errors = mpflc("graph", broken.toString());
        assertEquals(1, errors.exit());
        assertTrue(errors.err().contains("broken.mpfl.xml:1:") && errors.out().isEmpty(), errors.err() + errors.out());
        // a DOT label cannot be broken out of by a name with quotes
        assertEquals("\"a\\\"b\\\\c\\nd\"", org.mpfl.compiler.comm.WorkflowGraphAccess.quote("a\"b\\c\nd"));
    }
}
