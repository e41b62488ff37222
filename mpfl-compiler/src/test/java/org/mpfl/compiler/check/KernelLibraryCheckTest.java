package org.mpfl.compiler.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.compiler.MpflCompilerBridge;
import org.mpfl.compiler.commands.CheckCommand;
import org.mpfl.ir.spi.WorkflowCompiler;
import org.mpfl.testing.StartsProcesses;

/**
 * {@code mpflc check} and kernels in other languages: a Python function its module does not define is
 * an error at the compute's file:line:col, found by parsing the module in a real interpreter (never
 * importing it: the module below would fail if imported); a module outside the libraries is a
 * warning; a command outside the library directories an error; no interpreter: a warning. The compiler
 * of {@code mpflc run --local}, which knows the interpreter the kernels will run in, makes the same
 * checks and refuses the run on their errors.
 */
@StartsProcesses
class KernelLibraryCheckTest {
    private static final String PYTHON = System.getProperty("mpfl.test.python", "/usr/bin/python3");

    private record Checked(int exit, String err) {
    }

    private static Checked check(Path dir, String computes, String... extra) throws Exception {
        Files.createDirectories(dir.resolve("kernels"));
        Files.writeString(dir.resolve("kernels/heat.py"), """
                raise RuntimeError("imported: the check must only parse this file")
                def sweep(u):
                    return {"u": u}
                """);
        Files.writeString(dir.resolve("kernels/shapes.py"), """
                import functools
                def defaults(u, dt=0.1, *, steps=1):
                    return {"u": u}
                def anything(u, **more):
                    return {"u": u}
                @functools.lru_cache
                def decorated(grid):
                    return {"u": grid}
                def rebound(grid):
                    return {"u": grid}
                rebound = functools.partial(rebound, grid=None)
                def sweep(u, dt, /, steps, *, tol):
                    return {"u": u}
                async def waits(u):
                    return {"u": u}
                def yields(u):
                    def inner():
                        return 1
                    yield {"u": u}
                def returns_a_generator(u):
                    return {"u": (x for x in u)}
                def by_position(*values):
                    return {"u": values[0]}
                def without_parameters():
                    return {"u": None}
                """);
        Files.createDirectories(dir.resolve("bin"));
        Files.writeString(dir.resolve("bin/tool"), "#!/bin/sh\n");
        Path doc = dir.resolve("k.mpfl.xml");
        Files.writeString(doc, """
                <workflow xmlns="urn:mpfl:1.0" name="k">
                  <library path="kernels/heat.py"/>
                  <library path="kernels/shapes.py"/>
                  <library path="bin"/>
                  <process name="p" ranks="1">
                    <var name="u" type="double[]"/>
                %s
                  </process>
                </workflow>
                """.formatted(computes));
        List<String> args = new ArrayList<>(List.of(doc.toString()));
        args.addAll(List.of(extra));
        return checkCommand(args);
    }

    private static Checked checkCommand(List<String> args) throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = new CheckCommand().run(args, new PrintStream(new ByteArrayOutputStream()), new PrintStream(err, true,
                StandardCharsets.UTF_8));
        return new Checked(exit, err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aFunctionTheModuleDefinesChecksClean(@TempDir Path dir) throws Exception {
        Checked c = check(dir, "    <compute python=\"heat:sweep\" in=\"u\" out=\"u\"/>", "--python", PYTHON);
        assertEquals(0, c.exit(), c.err());
        assertFalse(c.err().contains("warning"), c.err());
    }

    @Test
    void aMissingFunctionIsAnErrorAtTheCompute(@TempDir Path dir) throws Exception {
        Checked c = check(dir, "    <compute python=\"heat:swep\" in=\"u\" out=\"u\"/>", "--python", PYTHON);
        assertEquals(1, c.exit(), c.err());
        assertTrue(c.err().contains("k.mpfl.xml:7:5: error: python module kernels/heat.py has no function 'swep'")
                && c.err().contains("sweep"), c.err());
    }

    /** A name its module binds only with 'import X' is a module, never a function: the run would fail at its start. */
    @Test
    void anImportedModuleIsNotAFunction(@TempDir Path dir) throws Exception {
        Checked c = check(dir, "    <compute python=\"shapes:functools\" in=\"u\" out=\"u\"/>", "--python", PYTHON);
        assertEquals(1, c.exit(), c.err());
        assertTrue(c.err().contains("k.mpfl.xml:7:5: error: python module kernels/shapes.py has no function 'functools':"
                + " the name is a module it imports"), c.err());
    }

    @Test
    void aModuleThatDoesNotParseIsAnErrorWithThePythonFilesLineAndColumn(@TempDir Path dir) throws Exception {
        check(dir, "    <compute python=\"heat:sweep\" in=\"u\" out=\"u\"/>"); // writes the fixture
        Files.writeString(dir.resolve("kernels/heat.py"), "def sweep(u)\n    return {\"u\": u}\n");
        Checked c = checkCommand(List.of(dir.resolve("k.mpfl.xml").toString(), "--python", PYTHON));
        assertEquals(1, c.exit(), c.err());
        assertTrue(c.err().contains("k.mpfl.xml:7:5: error: python module kernels/heat.py does not parse:"
                + " kernels/heat.py:1:13: SyntaxError: expected ':'"), c.err());
    }

    /**
     * A kernel is called with its inputs as keyword arguments: a def that cannot take them so would fail every
     * call with Python's TypeError, so the check says so at the compute, naming the def's file and line. What
     * a decorator or a later binding may change is not judged.
     */
    @Test
    void theInputsMustFitTheFunctionsParameters(@TempDir Path dir) throws Exception {
        Checked fits = check(dir, """
                    <var name="dt" type="double"/>
                    <compute python="shapes:defaults" in="u" out="u"/>
                    <compute python="shapes:anything" in="u, dt" out="u"/>
                    <compute python="shapes:decorated" in="u, dt" out="u"/>
                    <compute python="shapes:rebound" in="u" out="u"/>
                """, "--python", PYTHON);
        assertEquals(0, fits.exit(), fits.err());
        assertFalse(fits.err().contains("python function"), fits.err());

        Checked wrong = check(dir, """
                    <var name="dt" type="double"/>
                    <var name="step" type="int"/>
                    <compute python="shapes:sweep" in="u, dt, step" out="u"/>
                """, "--python", PYTHON);
        assertEquals(1, wrong.exit(), wrong.err());
        String at = "k.mpfl.xml:9:5: error: python function 'sweep' (kernels/shapes.py:12) ";
        assertTrue(wrong.err().contains(at + "takes 'u' by position only, but a kernel gets its inputs by keyword"), wrong.err());
        assertTrue(wrong.err().contains(at + "has no parameter 'step', which in= gives it (its parameters: steps, tol)"
                + " (did you mean 'steps'?)"), wrong.err());
        assertTrue(wrong.err().contains(at + "needs 'steps', which in= does not give (it gives u, dt, step)"), wrong.err());
        assertTrue(wrong.err().contains(at + "needs 'tol'"), wrong.err());
        assertFalse(wrong.err().contains(at + "has no parameter 'u'"), "said once, as position only: " + wrong.err());
    }

    /**
     * A def that takes no keyword arguments ({@code def f(*args)}, {@code def f()}) is told the rule it breaks, not only
     * that it has no such parameter: the in values come as keyword arguments, and the defs that take them.
     */
    @Test
    void aDefWithoutKeywordParametersIsToldHowInValuesArrive(@TempDir Path dir) throws Exception {
        Checked c = check(dir, """
                    <var name="dt" type="double"/>
                    <compute python="shapes:by_position" in="u, dt" out="u"/>
                    <compute python="shapes:without_parameters" in="u" out="u"/>
                """, "--python", PYTHON);
        assertEquals(1, c.exit(), c.err());
        assertTrue(c.err().contains("k.mpfl.xml:8:5: error: python function 'by_position' (kernels/shapes.py:22) takes"
                + " no keyword arguments (*values takes values by position only), but in= gives u, dt: a kernel gets its in"
                + " values as keyword arguments, so declare def by_position(u, dt) or def by_position(**kw)"), c.err());
        assertTrue(c.err().contains("k.mpfl.xml:9:5: error: python function 'without_parameters' (kernels/shapes.py:24) takes"
                + " no keyword arguments (it has no parameters), but in= gives u: a kernel gets its in values as keyword"
                + " arguments, so declare def without_parameters(u) or def without_parameters(**kw)"), c.err());
        assertEquals(2, c.err().lines().filter(l -> l.contains(": error: ")).count(), "once per compute: " + c.err());
    }

    /**
     * The worker calls a kernel and takes the dict it returns: an {@code async def} returns a coroutine that nobody
     * awaits and a def that yields returns a generator, so every call would fail ("returned coroutine, not a dict").
     * Said before the run, at the compute; a def that only holds a generator expression is a plain function.
     */
    @Test
    void anAsyncDefOrAGeneratorIsNoKernel(@TempDir Path dir) throws Exception {
        Checked c = check(dir, """
                    <compute python="shapes:waits" in="u" out="u"/>
                    <compute python="shapes:yields" in="u" out="u"/>
                    <compute python="shapes:returns_a_generator" in="u" out="u"/>
                """, "--python", PYTHON);
        assertEquals(1, c.exit(), c.err());
        assertTrue(c.err().contains("k.mpfl.xml:7:5: error: python function 'waits' (kernels/shapes.py:14) is an async def:"
                + " the worker calls a kernel and takes the dict it returns, it never awaits a coroutine"), c.err());
        assertTrue(c.err().contains("k.mpfl.xml:8:5: error: python function 'yields' (kernels/shapes.py:16) is a generator"
                + " (it yields): the worker calls a kernel and takes the dict it returns"), c.err());
        assertEquals(2, c.err().lines().filter(l -> l.contains(": error: ")).count(), c.err());
    }

    /**
     * A kernel module named as one the worker imports before the libraries (json here) would fail the rank at its
     * start: the check says so at the compute, from what the worker itself says it imported in that interpreter.
     */
    @Test
    void aKernelModuleNamedAsOneTheWorkerImportsIsAnErrorAtTheCompute(@TempDir Path dir) throws Exception {
        Files.createDirectories(dir.resolve("kernels"));
        Files.writeString(dir.resolve("kernels/json.py"), "def double(y):\n    return {\"y\": 2 * y}\n");
        Files.writeString(dir.resolve("kernels/mine.py"), "def double(y):\n    return {\"y\": 2 * y}\n");
        Files.writeString(dir.resolve("k.mpfl.xml"), """
                <workflow xmlns="urn:mpfl:1.0" name="k">
                  <library path="kernels"/>
                  <process name="p" ranks="1">
                    <var name="y" type="double"/>
                    <compute python="json:double" in="y" out="y"/>
                    <compute python="mine:double" in="y" out="y"/>
                  </process>
                </workflow>
                """);
        Checked c = checkCommand(List.of(dir.resolve("k.mpfl.xml").toString(), "--python", PYTHON));
        assertEquals(1, c.exit(), c.err());
        assertTrue(c.err().contains("k.mpfl.xml:5:5: error: python module 'json' is Python's own or an installed one, not the"
                + " workflow's kernels/json.py: the worker imports a module of that name (" + PYTHON + ") before the workflow's"
                + " libraries, so the kernel module would never be loaded; rename the kernel module"), c.err());
        assertEquals(1, c.err().lines().filter(l -> l.contains(": error: ")).count(), "mine.py is no such module: " + c.err());
    }

    /** An interpreter that parses but cannot run the worker leaves the module names unchecked, with a warning. */
    @Test
    void withoutTheWorkersAnswerTheModuleNamesAreNotChecked(@TempDir Path dir) throws Exception {
        Path python = dir.resolve("parses-only");
        Files.writeString(python, "#!/bin/sh\n[ \"$1\" = -I ] && exec " + PYTHON + " \"$@\"\nexit 3\n");
        Files.setPosixFilePermissions(python, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        Checked c = check(dir, "    <compute python=\"heat:sweep\" in=\"u\" out=\"u\"/>", "--python", python.toString());
        assertEquals(0, c.exit(), c.err());
        assertTrue(c.err().contains("k.mpfl.xml:7:5: warning: python module names not checked against those the worker imports"
                + " itself: " + python + " exited with status 3 while listing the modules it imports"), c.err());
    }

    @Test
    void aModuleOutsideTheLibrariesIsAWarning(@TempDir Path dir) throws Exception {
        Checked c = check(dir, "    <compute python=\"scipy.signal:convolve\" in=\"u\" out=\"u\"/>", "--python", PYTHON);
        assertEquals(0, c.exit(), c.err());
        assertTrue(c.err().contains("k.mpfl.xml:7:5: warning: python module 'scipy.signal' is not in the workflow's libraries"),
                c.err());
    }

    @Test
    void withoutAnInterpreterTheFunctionsAreNotChecked(@TempDir Path dir) throws Exception {
        Checked c = check(dir, "    <compute python=\"heat:swep\" in=\"u\" out=\"u\"/>", "--python", "/no/such/python3");
        assertEquals(0, c.exit(), c.err());
        assertTrue(c.err().contains("warning: python functions not checked: cannot run /no/such/python3"), c.err());
    }

    /** A program that is no Python (exits 0, says nothing): its silence is not "the module has no such function". */
    @Test
    void aProgramThatIsNoPythonLeavesTheFunctionsUnchecked(@TempDir Path dir) throws Exception {
        Checked c = check(dir, "    <compute python=\"heat:sweep\" in=\"u\" out=\"u\"/>", "--python", "/bin/true");
        assertEquals(0, c.exit(), c.err());
        assertTrue(c.err().contains("warning: python functions not checked: /bin/true gave no answer: is it a Python 3 interpreter?"),
                c.err());
        assertFalse(c.err().contains("has no function"), c.err());
    }

    @Test
    void aRunsCompilerGivenTheInterpreterRefusesAMissingFunctionAndAModuleThatDoesNotParse(@TempDir Path dir) throws Exception {
        check(dir, "    <compute python=\"heat:swep\" in=\"u\" out=\"u\"/>"); // writes the fixture
        String document = Files.readString(dir.resolve("k.mpfl.xml"));
        WorkflowCompiler plain = new MpflCompilerBridge(dir);
        // an engine's compiler does not know the hosts' interpreter: the document compiles
        assertEquals("k", plain.compile("k.mpfl.xml", document, Map.of()).plan().workflow());
        WorkflowCompiler.CompileException missing = assertThrows(WorkflowCompiler.CompileException.class,
                () -> plain.checkingPythonKernelsWith(PYTHON).compile("k.mpfl.xml", document, Map.of()));
        assertTrue(missing.diagnostics().contains(
                "k.mpfl.xml:7:5: error: python module kernels/heat.py has no function 'swep' (did you mean 'sweep'?)"),
                missing.diagnostics().toString());
        Files.writeString(dir.resolve("kernels/heat.py"), "def sweep(u:\n");
        WorkflowCompiler.CompileException broken = assertThrows(WorkflowCompiler.CompileException.class,
                () -> plain.checkingPythonKernelsWith(PYTHON).compileForThisJvm("k.mpfl.xml", document, Map.of()));
        assertTrue(broken.diagnostics().get(0).startsWith(
                "k.mpfl.xml:7:5: error: python module kernels/heat.py does not parse: kernels/heat.py:1:10: SyntaxError"),
                broken.diagnostics().toString());
    }

    @Test
    void aCommandMustBeInALibraryDirectory(@TempDir Path dir) throws Exception {
        Checked inside = check(dir, "    <compute command=\"bin/tool\" in=\"u\" out=\"u\"/>");
        assertEquals(0, inside.exit(), inside.err());
        Checked outside = check(dir, "    <compute command=\"tools/other\" in=\"u\" out=\"u\"/>");
        assertEquals(1, outside.exit(), outside.err());
        assertTrue(outside.err().contains("k.mpfl.xml:7:5: error: command tools/other is not inside a <library>"), outside.err());
        Checked missing = check(dir, "    <compute command=\"bin/nothing\" in=\"u\" out=\"u\"/>");
        assertTrue(missing.err().contains("error: command not found: bin/nothing"), missing.err());
    }

    @Test
    void computeNeedsExactlyOneKernel(@TempDir Path dir) throws Exception {
        Checked none = check(dir, "    <compute in=\"u\" out=\"u\"/>");
        assertTrue(none.err().contains("k.mpfl.xml:7:5: error: <compute> needs one of class="), none.err());
        Checked two = check(dir, "    <compute class=\"a.B\" python=\"heat:sweep\" in=\"u\" out=\"u\"/>");
        assertTrue(two.err().contains("error: <compute> takes only one of class, python and command"), two.err());
        Checked bad = check(dir, "    <compute python=\"heat.sweep\" in=\"u\" out=\"u\"/>");
        assertTrue(bad.err().contains("error: python='heat.sweep' must be MODULE:FUNCTION"), bad.err());
    }
}
