package org.mpfl.compiler.scaffold;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.compiler.MpflCompiler;
import org.mpfl.ir.diag.Diagnostic;
import org.mpfl.testing.MpflcCall;
import org.mpfl.testing.StartsProcesses;

/**
 * {@code mpflc new} in this JVM: the files of each template, the names filled in, the refusals. That the
 * projects build, test and run is OwnKernelsTest's (enactment-engine: real Maven, Python and mpflc processes).
 * A Python project asks python3 (on the PATH, as its README's command does) for the module names the kernel
 * worker takes itself: those tests start that process.
 */
class NewCommandTest {
    @TempDir
    Path tmp;

    static TreeSet<String> files(Path dir) throws Exception {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile).map(p -> dir.relativize(p).toString()).collect(TreeSet::new, TreeSet::add, TreeSet::addAll);
        }
    }

    @Test
    void aJavaProjectHasItsKernelTestDocumentReadmeAndPom() throws Exception {
        Path dir = tmp.resolve("heat-kernels");
        MpflcCall call = MpflcCall.run("new", "java", dir.toString());
        assertEquals(0, call.exit(), call.err());
        assertEquals(new TreeSet<>(List.of(".gitignore", "README.md", "heat-kernels.mpfl.xml", "pom.xml",
                "src/main/java/org/example/heat_kernels/SumOfSquares.java",
                "src/test/java/org/example/heat_kernels/SumOfSquaresTest.java")), files(dir));
        String pom = Files.readString(dir.resolve("pom.xml"));
        assertTrue(pom.contains("<artifactId>mpfl-api</artifactId><version>" + mpflVersion() + "</version>"), pom);
        assertTrue(pom.contains("<finalName>heat-kernels</finalName>"), pom);
        assertFalse(pom.contains("{{") || pom.contains("${"), pom);
        String doc = Files.readString(dir.resolve("heat-kernels.mpfl.xml"));
        assertTrue(doc.contains("<library path=\"target/heat-kernels.jar\"/>") && doc.contains(
                "<compute class=\"org.example.heat_kernels.SumOfSquares\" in=\"x\" out=\"sum\"/>"), doc);
        assertTrue(Files.readString(dir.resolve("src/main/java/org/example/heat_kernels/SumOfSquares.java"))
                .startsWith("package org.example.heat_kernels;"));
        assertTrue(call.out().contains("mvn -q -o package"), call.out());
    }

    @Test
    @StartsProcesses
    void thePythonProjectCallsItsModuleFunction() throws Exception {
        Path dir = tmp.resolve("p");
        MpflcCall call = MpflcCall.run("new", "python", dir.toString(), "--name", "My-Kernels");
        assertEquals(0, call.exit(), call.err());
        assertEquals(new TreeSet<>(List.of(".gitignore", "README.md", "My-Kernels.mpfl.xml", "kernels/my_kernels.py",
                "tests/__init__.py", "tests/test_my_kernels.py")), files(dir));
        String doc = Files.readString(dir.resolve("My-Kernels.mpfl.xml"));
        assertTrue(doc.contains("<library path=\"kernels/my_kernels.py\"/>")
                && doc.contains("<compute python=\"my_kernels:sum_of_squares\" in=\"x\" out=\"sum\"/>"), doc);
        assertTrue(Files.readString(dir.resolve("tests/test_my_kernels.py")).contains("\nimport my_kernels  # noqa"));
        assertTrue(Files.readString(dir.resolve("README.md")).contains("python3 -m unittest\n"));
    }

    @Test
    void theJavaDocumentChecksWithoutItsJar() {
        // the document is right before the jar exists: only the library's absence is reported
        Path dir = tmp.resolve("k");
        assertEquals(0, MpflcCall.run("new", "java", dir.toString()).exit());
        MpflCompiler.CheckResult result = new MpflCompiler().check(dir.resolve("k.mpfl.xml"), "k.mpfl.xml", Map.of());
        List<String> errors = result.diagnostics().sorted().stream().map(Diagnostic::toString).toList();
        assertTrue(errors.stream().allMatch(e -> e.contains("target/k.jar")), errors.toString());
    }

    @Test
    void aNonEmptyDirectoryIsRefusedAndNothingIsWritten() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("busy"));
        Files.writeString(dir.resolve("pom.xml"), "mine");
        MpflcCall call = MpflcCall.run("new", "java", dir.toString());
        assertEquals(2, call.exit());
        assertTrue(call.err().contains("busy is not empty (it holds pom.xml); mpflc new never overwrites"), call.err());
        assertEquals(new TreeSet<>(List.of("pom.xml")), files(dir));
        assertEquals("mine", Files.readString(dir.resolve("pom.xml")));
        Path file = Files.writeString(tmp.resolve("a-file"), "x");
        assertTrue(MpflcCall.run("new", "python", file.toString()).err().contains("is a file"));
    }

    @Test
    @StartsProcesses
    void anEmptyDirectoryIsUsed() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("empty"));
        assertEquals(0, MpflcCall.run("new", "python", dir.toString()).exit());
        assertTrue(Files.isRegularFile(dir.resolve("kernels/empty.py")));
    }

    @Test
    void badLanguagesAndNamesAreUsageErrors() {
        MpflcCall lang = MpflcCall.run("new", "fortran", tmp.resolve("f").toString());
        assertEquals(2, lang.exit());
        assertTrue(lang.err().contains("no project template for 'fortran': java or python"), lang.err());
        MpflcCall digit = MpflcCall.run("new", "java", tmp.resolve("2d").toString());
        assertEquals(2, digit.exit());
        assertTrue(digit.err().contains("'2d' cannot name a workflow (it is the directory's name)") && digit.err().contains("--name"),
                digit.err());
        assertEquals(2, MpflcCall.run("new", "java", tmp.resolve("x").toString(), "--name", "int").exit());
        assertFalse(Files.exists(tmp.resolve("x")), "nothing written for a refused name");
        assertEquals(2, MpflcCall.run("new", "java").exit());
    }

    /**
     * A Python project named as a module the worker imports before the workflow's libraries (Python's own, or
     * installed) could never load its kernel: mpflc check and every run would refuse it. Refused before anything
     * is written, from the worker's own list in python3, with the way out.
     */
    @Test
    @StartsProcesses
    void aPythonModuleNameTheWorkerTakesIsRefusedAndNothingIsWritten() {
        Path random = tmp.resolve("random");
        MpflcCall byDirectory = MpflcCall.run("new", "python", random.toString());
        assertEquals(2, byDirectory.exit(), byDirectory.err());
        assertTrue(byDirectory.err().contains("'random' (the directory's name) would name the kernel module kernels/random.py,"
                + " but random is Python's own or an installed module that the kernel worker imports first (python3)"),
                byDirectory.err());
        assertTrue(byDirectory.err().contains("give another name, e.g. --name random-kernels (module random_kernels)"),
                byDirectory.err());
        assertFalse(byDirectory.err().contains("\tat "), "no stack trace: " + byDirectory.err());
        assertFalse(Files.exists(random), "nothing written for a refused name");
        Path dir = tmp.resolve("j");
        MpflcCall given = MpflcCall.run("new", "python", dir.toString(), "--name", "json");
        assertEquals(2, given.exit(), given.err());
        assertTrue(given.err().contains("'json' would name the kernel module kernels/json.py, but json is Python's own"),
                given.err());
        assertTrue(given.err().contains("--name json-kernels (module json_kernels)"), given.err());
        assertFalse(Files.exists(dir), "nothing written for a refused name");
        // the module's name, not the workflow's, is what Python looks up
        assertEquals(2, MpflcCall.run("new", "python", tmp.resolve("t").toString(), "--name", "Time").exit());
    }

    /**
     * A name that is a keyword of the project's language could not be imported or declared: 'lambda' made a Python
     * project whose own test failed with a SyntaxError ({@code import lambda}), and 'class' was refused with a hint
     * to use letters and digits, which it already is. Each is refused naming the keyword, with a way out.
     */
    @Test
    void aKeywordOfTheProjectsLanguageIsRefusedSayingSo() {
        Path lambda = tmp.resolve("lambda");
        MpflcCall python = MpflcCall.run("new", "python", lambda.toString());
        assertEquals(2, python.exit(), python.err());
        assertTrue(python.err().contains("'lambda' (the directory's name) would name the kernel module kernels/lambda.py,"
                + " but lambda is a Python keyword: 'import lambda' is a syntax error; give another name, e.g. --name"
                + " lambda-kernels (module lambda_kernels)"), python.err());
        assertFalse(Files.exists(lambda), "nothing written for a refused name");
        MpflcCall java = MpflcCall.run("new", "java", tmp.resolve("x").toString(), "--name", "class");
        assertEquals(2, java.exit(), java.err());
        assertTrue(java.err().contains("'class' would name the kernel's package org.example.class, but class is a Java"
                + " keyword; give another name, e.g. --name class-kernels (package org.example.class_kernels)"), java.err());
        assertFalse(Files.exists(tmp.resolve("x")), "nothing written for a refused name");
    }

    /** A Java package may be called random: the Java template asks no interpreter. */
    @Test
    void aJavaProjectMayHaveAPythonModulesName() throws Exception {
        Path dir = tmp.resolve("random");
        MpflcCall call = MpflcCall.run("new", "java", dir.toString());
        assertEquals(0, call.exit(), call.err());
        assertTrue(Files.isRegularFile(dir.resolve("src/main/java/org/example/random/SumOfSquares.java")), files(dir).toString());
    }

    /** Without an interpreter to ask, the project is written (its README's python3 -m unittest will say so): one note, no trace. */
    @Test
    void withoutPython3TheNameIsNotCheckedAndTheProjectIsWritten() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        ProjectNames names = ProjectNames.of("random", false);
        NewCommand.requireLoadableModule(names, false, "/no/such/python3", err);
        String note = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(1, note.lines().count(), note);
        assertTrue(note.startsWith("mpflc new: module name random not checked against those the kernel worker imports itself:"
                + " cannot run /no/such/python3"), note);
    }

    @Test
    void helpDescribesTheLanguagesAndTheName() {
        MpflcCall call = MpflcCall.run("new", "--help");
        assertEquals(0, call.exit());
        assertTrue(call.out().startsWith("usage: mpflc new LANGUAGE DIR [OPTIONS]"), call.out());
        assertTrue(call.out().contains("--name NAME") && call.out().contains("python3 -m unittest"), call.out());
    }

    @Test
    void aPlaceholderWithoutAValueIsATemplateBugNamingTheTemplate() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> ProjectTemplate.fill("a {{nope}} b", Map.of(), "x.template"));
        assertEquals("template x.template: no value for {{nope}}", e.getMessage());
        assertEquals("a 1 b", ProjectTemplate.fill("a {{one}} b", Map.of("one", "1"), "x.template"));
    }

    private static String mpflVersion() throws Exception {
        // the parent POM's version, read from the POM rather than written here
        String parent = Files.readString(Path.of("../pom.xml"));
        int at = parent.indexOf("<version>");
        return parent.substring(at + "<version>".length(), parent.indexOf("</version>", at));
    }
}
