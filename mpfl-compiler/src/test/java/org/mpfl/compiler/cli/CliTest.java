package org.mpfl.compiler.cli;

import org.mpfl.ir.cli.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code mpflc check} and {@code mpflc compile} through the launcher: exit codes and output format. */
class CliTest {
    private static final String HEAT = "src/test/resources/fixtures/valid/heat1d.mpfl.xml";
    private static final String TYPES = "src/test/resources/fixtures/errors/types.mpfl.xml";
    /** No diagnostic at all, not even a warning of the communication check. */
    private static final String CLEAN = "src/test/resources/fixtures/comm/ring-even-odd.mpfl.xml";

    @TempDir
    Path out;

    record Run(int exit, String stdout, String stderr) {
    }

    static Run mpflc(String... args) {
        ByteArrayOutputStream stdout = new ByteArrayOutputStream();
        ByteArrayOutputStream stderr = new ByteArrayOutputStream();
        int exit = Commands.run(List.of(args), new PrintStream(stdout, true, StandardCharsets.UTF_8),
                new PrintStream(stderr, true, StandardCharsets.UTF_8));
        return new Run(exit, stdout.toString(StandardCharsets.UTF_8), stderr.toString(StandardCharsets.UTF_8));
    }

    @Test
    void cleanDocumentExitsZeroSilently() {
        Run run = mpflc("check", CLEAN);
        assertEquals(0, run.exit(), run.stderr());
        assertEquals("", run.stderr());
    }

    @Test
    void warningsOfTheCommunicationCheckKeepExitZero() {
        Run run = mpflc("check", HEAT);
        assertEquals(0, run.exit(), run.stderr());
        assertTrue(run.stderr().contains("warning: the communication after this <if> depends on run-time data"), run.stderr());
        assertTrue(run.stderr().endsWith("0 errors, 1 warning" + System.lineSeparator()), run.stderr());
    }

    @Test
    void errorsAreGccStyleSortedAndExitOne() {
        Run run = mpflc("check", TYPES);
        assertEquals(1, run.exit());
        List<String> lines = run.stderr().lines().toList();
        assertTrue(lines.size() > 10);
        assertTrue(lines.get(lines.size() - 1).matches("\\d+ errors?, \\d+ warnings?"), lines.get(lines.size() - 1));
        int previousLine = 0;
        for (String line : lines.subList(0, lines.size() - 1)) {
            assertTrue(line.matches("\\Q" + TYPES + "\\E:\\d+:\\d+: (error|warning): .+"), line);
            int lineNumber = Integer.parseInt(line.substring(TYPES.length() + 1).split(":")[0]);
            assertTrue(lineNumber >= previousLine, "sorted by position");
            previousLine = lineNumber;
        }
        assertTrue(run.stderr().contains(TYPES + ":13:38: error: cannot initialise int variable 'bad' with double (narrow explicitly with int(...))"));
    }

    @Test
    void paramsReachTheChecks() {
        assertEquals(0, mpflc("check", HEAT, "--param", "steps=10", "--param=eps=0.5").exit());
        Run wrong = mpflc("check", HEAT, "--param", "steps=ten");
        assertEquals(1, wrong.exit());
        assertTrue(wrong.stderr().contains("--param steps=ten: not a valid int"), wrong.stderr());
        assertTrue(wrong.stderr().contains(HEAT + ":6:3: error: --param steps=ten"), "at the param's declaration (line 6),"
                + " which says its type: " + wrong.stderr());
        Run unknown = mpflc("check", HEAT, "--param", "nosuch=1");
        assertTrue(unknown.stderr().contains("no param 'nosuch' (it declares "), unknown.stderr());
        assertTrue(unknown.stderr().contains("steps"), unknown.stderr());
    }

    @Test
    void missingFileIsOneLineWithoutStackTrace() {
        Run run = mpflc("check", "no/such/file.mpfl.xml");
        assertEquals(1, run.exit());
        assertEquals("mpflc check: no/such/file.mpfl.xml: no such file", run.stderr().strip());
        Run compile = mpflc("compile", "nope.mpfl.xml");
        assertEquals(1, compile.exit());
        assertEquals(1, compile.stderr().lines().count());
    }

    @Test
    void usageErrorsExitTwo() {
        assertEquals(2, mpflc("check").exit());
        assertEquals(2, mpflc("check", HEAT, "--frobnicate").exit());
        assertEquals(2, mpflc("check", HEAT, "--param").exit());
        assertEquals(2, mpflc("check", HEAT, "--param", "novalue").exit());
        assertEquals(2, mpflc("check", HEAT, HEAT).exit());
        assertEquals(2, mpflc("compile", HEAT, "-o").exit());
        assertTrue(mpflc("check").stderr().startsWith("mpflc check: missing FILE"), mpflc("check").stderr());
        assertTrue(mpflc("check", HEAT, "--frobnicate").stderr().startsWith("mpflc check: unknown option --frobnicate"));
        assertTrue(mpflc("compile", HEAT, "-o").stderr().startsWith("mpflc compile: -o needs a value"));
    }

    @Test
    void everyCompilerCommandAnswersHelpWithItsOptions() {
        for (String command : List.of("check", "compile", "graph")) {
            for (String help : List.of("--help", "-h")) {
                Run run = mpflc(command, help);
                assertEquals(0, run.exit(), command + " " + help + ": " + run.stderr());
                assertTrue(run.stdout().startsWith("usage: mpflc " + command + " FILE [OPTIONS]"), run.stdout());
                assertTrue(run.stdout().contains("-p, --param NAME=VALUE"), run.stdout());
            }
        }
        assertTrue(mpflc("compile", "--help").stdout().contains("--bundle-runtime"));
        assertTrue(mpflc("graph", HEAT, "-h").stdout().contains("-o, --output FILE"));
    }

    @Test
    void paramsAndOutputTakeEitherSpelling() throws IOException {
        Run run = mpflc("compile", HEAT, "--output=" + out, "-p", "steps=10");
        assertEquals(0, run.exit(), run.stderr());
        assertTrue(Files.isRegularFile(out.resolve("plan.json")));
    }

    @Test
    void compileWritesPlanAndArchives() throws IOException {
        Run run = mpflc("compile", HEAT, "-o", out.toString());
        assertEquals(0, run.exit(), run.stderr());
        assertEquals(List.of(out.resolve("plan.json").toString(), out.resolve("solver.aar").toString()), run.stdout().lines().toList());
        assertTrue(Files.size(out.resolve("solver.aar")) > 0);
    }

    @Test
    void bundleRuntimeWithoutTheRuntimeOnTheClassPathIsOneClearLine() throws IOException {
        // the compiler's own tests have no service-runtime on the class path (bin/mpflc has)
        Run run = mpflc("compile", HEAT, "-o", out.resolve("build").toString(), "--bundle-runtime");
        assertEquals(1, run.exit());
        assertEquals(1, run.stderr().lines().filter(l -> l.startsWith("mpflc compile:")).count(), run.stderr());
        assertTrue(run.stderr().contains("cannot bundle the runtime: class org.mpfl.runtime.interp.InterpreterService"),
                run.stderr());
        assertEquals(2, mpflc("check", HEAT, "--bundle-runtime").exit(), "a compile option only");
    }

    @Test
    void compileWritesNothingWhenTheDocumentHasErrors() throws IOException {
        Run run = mpflc("compile", TYPES, "-o", out.resolve("build").toString());
        assertEquals(1, run.exit());
        assertFalse(Files.exists(out.resolve("build")));
    }

    /**
     * Found using mpflc as a new user: {@code -o} naming a file said {@code cannot write afile: afile} after the checks,
     * a directory that cannot be made {@code cannot write /proc/nope: /proc/nope}, and {@code mpflc new} into one
     * {@code mpflc new: /proc/x}: the path again, never why.
     */
    @Test
    void anOutputThatCannotBeWrittenSaysWhy() throws IOException {
        Path file = Files.writeString(out.resolve("afile"), "");
        Run intoFile = mpflc("compile", CLEAN, "-o", file.toString());
        assertEquals(2, intoFile.exit(), intoFile.stderr());
        assertEquals("mpflc compile: -o " + file + " is a file: give a directory (compile writes plan.json and one .aar per"
                + " process into it, creating it if needed)\n", intoFile.stderr());
        // a link to nowhere: as root (the CI) every real directory is writable, but this one cannot be made
        Path dangling = Files.createSymbolicLink(out.resolve("dangling"), out.resolve("nowhere/deeper"));
        Run compile = mpflc("compile", CLEAN, "-o", dangling.toString());
        assertEquals(1, compile.exit(), compile.stderr());
        assertEquals("mpflc compile: cannot write " + dangling + ": already exists\n", compile.stderr());
        Run project = mpflc("new", "java", dangling.toString());
        assertEquals(1, project.exit(), project.stderr());
        assertEquals("mpflc new: " + dangling + ": already exists\n", project.stderr());
    }

    @Test
    void helpListsTheCommands() {
        Run run = mpflc("--help");
        assertTrue(run.stdout().contains("check"));
        assertTrue(run.stdout().contains("compile"));
    }
}
