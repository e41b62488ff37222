package org.mpfl.engine.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mpfl.testing.docs.DocumentedCommands.assertRanAsDocumented;
import static org.mpfl.testing.docs.DocumentedCommands.root;
import static org.mpfl.testing.docs.DocumentedCommands.section;
import static org.mpfl.testing.docs.DocumentedCommands.shBlocks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.testing.StartsProcesses;
import org.mpfl.testing.childjvm.ChildJvm;
import org.mpfl.testing.docs.DocumentedCommands;
import org.mpfl.testing.docs.DocumentedCommands.Result;

/**
 * Your own kernels as a user meets them ({@code mpflc new}, docs/tutorial.md section 9): real processes
 * throughout — {@code bin/mpflc} as the package phase built it, Maven offline against the local repository
 * this build installed {@code mpfl-api} into (the test JVM gets it as {@code maven.repo.local}, and passes it
 * to Maven through {@code MAVEN_OPTS}, which is what a user with another repository would do), and
 * {@code /usr/bin/python3}. The commands run are read from the files a user reads (the project's README,
 * the tutorial), never restated here.
 */
@StartsProcesses
class OwnKernelsTest {
    /** An offline Maven build plus a local run on a loaded 2-core machine took about 70 s; the bound is 8x that. */
    private static final String CHILD_JVM_OPTS = String.join(" ", ChildJvm.shortLivedOptions(null));

    /** The local Maven repository the build installed mpfl-api into. */
    static String repository() {
        return System.getProperty("maven.repo.local", Path.of(System.getProperty("user.home"), ".m2", "repository").toString());
    }

    /**
     * {@code env} with the child Maven's options: the repository the build installed mpfl-api into, and C1 only and the
     * serial collector for it (and, by argLine, the kernel project's test JVM): a short build's JVMs do not live long
     * enough for C2 or parallel GC threads to pay off; the commands run stay as written.
     */
    private static Map<String, String> withMaven(Map<String, String> env) {
        Map<String, String> all = new java.util.HashMap<>(Map.of("MAVEN_OPTS", "-Dmaven.repo.local=" + repository() + " "
                + CHILD_JVM_OPTS + " -DargLine=-XX:TieredStopAtLevel=1"));
        all.putAll(env);
        return all;
    }

    static Result bash(String script, Path dir, Map<String, String> env) throws Exception {
        return DocumentedCommands.bash(script, dir, withMaven(env));
    }

    static Result run(List<String> command, Path dir, Map<String, String> env) throws Exception {
        return DocumentedCommands.run(command, dir, withMaven(env));
    }

    /**
     * The project a tutorial block made ({@code mpflc new}, then two commands in its directory): its README has one
     * {@code sh} block of two commands, and they are the tutorial block's last two (its {@code mpflc} is this
     * repository's {@code bin/mpflc}, the one the tutorial puts on the PATH). So the block that ran was the
     * README's two commands, from a new project: they succeeded and printed what the README promises — 4 ranks,
     * n = 1000, 1000 * (1 + 4 + 9 + 16). One build and run proves both texts (a Maven build and a
     * {@code run --local} each: ~10 CPU-s).
     */
    static void assertTheReadmesCommandsRan(Path project, String tutorialBlock, Result r) throws Exception {
        String readme = Files.readString(project.resolve("README.md"));
        List<String> blocks = shBlocks(readme);
        assertEquals(1, blocks.size(), "the README's commands: " + blocks);
        List<String> readmeCommands = blocks.get(0).lines()
                .map(c -> c.replace(root().resolve("bin/mpflc").toString() + " ", "mpflc ")).toList();
        assertEquals(2, readmeCommands.size(), "two commands: " + blocks.get(0));
        List<String> tutorialCommands = tutorialBlock.lines().map(c -> c.replaceFirst("\\s+#.*$", "").strip()).toList();
        assertEquals(readmeCommands, tutorialCommands.subList(tutorialCommands.size() - 2, tutorialCommands.size()),
                "the tutorial's block ends with the README's two commands");
        assertTrue(r.output().contains("SUCCEEDED 4/4 ranks done"), r.output());
        assertTrue(r.output().contains("total = 30000.0") && readme.contains("`total = 30000.0`"), r.output());
    }

    @Test
    void aBrokenJavaKernelFailsItsOwnTestAndNoJarIsWritten(@TempDir Path tmp) throws Exception {
        Path project = tmp.resolve("broken");
        assertEquals(0, run(List.of(root().resolve("bin/mpflc").toString(), "new", "java", project.toString()), tmp, Map.of()).exit());
        Path kernel = project.resolve("src/main/java/org/example/broken/SumOfSquares.java");
        Files.writeString(kernel, Files.readString(kernel).replace("sum += v * v;", "sum += v;"));
        Result r = bash(shBlocks(Files.readString(project.resolve("README.md"))).get(0), project, Map.of());
        assertNotEquals(0, r.exit(), r.output());
        assertTrue(r.output().contains("SumOfSquaresTest"), r.output());
        assertFalse(r.output().contains("SUCCEEDED"), "the run never started: " + r.output());
        assertFalse(Files.exists(project.resolve("target/broken.jar")), "a failed test stops the build before the jar");
    }

    @Test
    void thePythonProjectsTestPassesWithPython3AndFailsForABrokenKernel(@TempDir Path tmp) throws Exception {
        Path project = tmp.resolve("py-squares");
        assertEquals(0, run(List.of(root().resolve("bin/mpflc").toString(), "new", "python", project.toString()), tmp, Map.of()).exit());
        List<String> commands = shBlocks(Files.readString(project.resolve("README.md"))).get(0).lines().toList();
        assertEquals("python3 -m unittest", commands.get(0), "the README's first command");
        Result ok = run(List.of("/usr/bin/python3", "-m", "unittest"), project, Map.of());
        assertEquals(0, ok.exit(), ok.output());
        assertTrue(ok.output().contains("Ran 2 tests") && ok.output().contains("\nOK"), ok.output());
        Path kernel = project.resolve("kernels/py_squares.py");
        Files.writeString(kernel, Files.readString(kernel).replace("total += v * v", "total += v"));
        Result broken = run(List.of("/usr/bin/python3", "-m", "unittest"), project, Map.of());
        assertEquals(1, broken.exit(), broken.output());
        assertTrue(broken.output().contains("FAILED (failures=2)"), broken.output());
    }

    /**
     * The tutorial's "When a kernel fails", made in a new Python project: a function name that its module
     * does not define stops {@code mpflc run --local} before any rank starts, with the diagnostic the
     * tutorial quotes; the slip it shows fails the run with the traceback it shows, once (not once per
     * rank, nor the host's log of it).
     */
    @Test
    void theTutorialsKernelMistakesAreReportedAsItShows(@TempDir Path tmp) throws Exception {
        String tutorial = Files.readString(root().resolve("docs/tutorial.md"));
        String failing = section(section(tutorial, "## 9. Your own kernels"), "### When a kernel fails");
        Path project = tmp.resolve("my-py-kernels");
        String mpflc = root().resolve("bin/mpflc").toString();
        assertEquals(0, run(List.of(mpflc, "new", "python", project.toString()), tmp, Map.of()).exit());
        Path document = project.resolve("my-py-kernels.mpfl.xml");
        String written = Files.readString(document);
        Files.writeString(document, written.replace("my_py_kernels:sum_of_squares", "my_py_kernels:sum_of_square"));
        List<String> local = List.of(mpflc, "run", "my-py-kernels.mpfl.xml", "--local", "--python", "/usr/bin/python3");
        Result typo = run(local, project, Map.of());
        assertEquals(1, typo.exit(), typo.output());
        String diagnostic = "my-py-kernels.mpfl.xml:11:5: error: python module kernels/my_py_kernels.py has no function"
                + " 'sum_of_square' (did you mean 'sum_of_squares'?)";
        assertTrue(typo.output().contains(diagnostic), typo.output());
        assertTrue(failing.replaceAll("\\s+", " ").contains(diagnostic), "the tutorial quotes it: " + failing);
        assertFalse(typo.output().contains("running the ranks"), "refused before any rank started: " + typo.output());

        Files.writeString(document, written);
        Path kernel = project.resolve("kernels/my_py_kernels.py");
        Files.writeString(kernel, Files.readString(kernel).replace("total += v * v", "total += v * w"));
        assertTrue(failing.contains("`total += v * w` instead of `total += v * v`"), failing);
        Result raised = run(local, project, Map.of());
        assertEquals(1, raised.exit(), raised.output());
        Matcher block = Pattern.compile("(?s)```\\n(.*?)```").matcher(failing);
        assertTrue(block.find(), failing);
        // the block as printed, each … standing for what changes from run to run (the run's id, the rank)
        Pattern printed = Pattern.compile(String.join("[^\\n]*", java.util.Arrays.stream(block.group(1).split("…", -1))
                .map(Pattern::quote).toList()));
        assertTrue(printed.matcher(raised.output()).find(), "the tutorial's block:\n" + block.group(1) + "\nprinted:\n"
                + raised.output());
        assertEquals(1, raised.output().split("Traceback \\(most recent call last\\)", -1).length - 1,
                "the traceback once, in the run's error: " + raised.output());
        assertFalse(raised.output().contains("WARN"), "no host warnings for the workflow's own fault: " + raised.output());
    }

    /**
     * The one {@code sh} block of a subsection of the tutorial's "Your own kernels", run as written from the
     * repository root with a fresh directory as {@code ~}; it printed what it promises. Returns the block and
     * what it printed.
     */
    static Map.Entry<String, Result> tutorialCommandsRunAsWritten(String subsection, Path home) throws Exception {
        String tutorial = Files.readString(root().resolve("docs/tutorial.md"));
        List<String> blocks = shBlocks(section(section(tutorial, "## 9. Your own kernels"), subsection));
        assertEquals(1, blocks.size(), subsection + " commands: " + blocks);
        Result r = bash(blocks.get(0), root(), Map.of("HOME", home.toString()));
        assertRanAsDocumented(blocks.get(0), r);
        return Map.entry(blocks.get(0), r);
    }

    /** The tutorial's Java block: a new project, then its README's two commands (a Maven build, a local run). */
    @Test
    void theTutorialsJavaCommandsMakeAProjectThatBuildsAndRunsWithTheTwoCommandsOfItsReadme(@TempDir Path home) throws Exception {
        Map.Entry<String, Result> ran = tutorialCommandsRunAsWritten("### Java", home);
        Path project = home.resolve("my-kernels");
        assertTheReadmesCommandsRan(project, ran.getKey(), ran.getValue());
        String report = Files.readString(project.resolve("target/surefire-reports/TEST-org.example.my_kernels.SumOfSquaresTest.xml"));
        assertTrue(report.contains("tests=\"1\"") && report.contains("failures=\"0\"") && report.contains("errors=\"0\""), report);
        assertTrue(Files.isRegularFile(project.resolve("target/my-kernels.jar")));
    }

    /**
     * The tutorial's Python block: a new project, then its README's two commands — the kernel's unittest with
     * python3 from the PATH (Debian's, with NumPy: .ci/run installs python3-numpy), a local run.
     */
    @Test
    void theTutorialsPythonCommandsMakeAProjectThatRunsWithTheTwoCommandsOfItsReadme(@TempDir Path home) throws Exception {
        Map.Entry<String, Result> ran = tutorialCommandsRunAsWritten("### Python", home);
        assertTheReadmesCommandsRan(home.resolve("my-py-kernels"), ran.getKey(), ran.getValue());
        assertTrue(ran.getValue().output().contains("Ran 2 tests"), ran.getValue().output());
        assertTrue(Files.isRegularFile(home.resolve("my-py-kernels/kernels/my_py_kernels.py")));
    }
}
