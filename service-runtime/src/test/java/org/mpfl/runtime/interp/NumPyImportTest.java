package org.mpfl.runtime.interp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.testing.StartsProcesses;

/** The Python worker's own import of NumPy (at the first array) and the workflow's library modules. */
@StartsProcesses
@ExtendWith(KernelTestPython.ForClass.class)
class NumPyImportTest {
    private static final Duration LIMIT = Duration.ofSeconds(60);

    /**
     * A library module named as one NumPy imports (numbers.py next to the kernel, which nothing of the workflow's
     * imports) is not what NumPy gets: the worker imports NumPy with the workflow's libraries off sys.path. Before,
     * NumPy was imported with the libraries first on sys.path and imported the workflow's numbers.py (which a
     * workflow not checked by mpflc check does not hear about), failing or misbehaving inside NumPy.
     */
    @Test
    void aLibraryModuleNamedAsOneNumPyImportsDoesNotShadowIt(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("numbers.py"), """
                import sys
                sys.stderr.write("the workflow's numbers.py was imported\\n")
                """);
        Files.writeString(dir.resolve("sums.py"), """
                def total(x):
                    return {"s": float(x.sum())}
                """);
        Path document = dir.resolve("sums.mpfl.xml");
        Files.writeString(document, """
                <workflow xmlns="urn:mpfl:1.0" name="sums">
                  <library path="numbers.py"/>
                  <library path="sums.py"/>
                  <process name="node" ranks="1">
                    <var name="x" type="double[]" init="[1.5, 2.5]"/>
                    <var name="s" type="double"/>
                    <compute python="sums:total" in="x" out="s"/>
                    <output name="s" value="s"/>
                  </process>
                </workflow>
                """);
        InterpreterHarness.Result r = InterpreterHarness.run(document, Map.of(), LIMIT).succeeded();
        assertEquals(4.0, r.output("s", 0));
        assertFalse(r.rank(0).logs.stream().anyMatch(l -> l.contains("numbers.py was imported")), r.rank(0).logs.toString());
    }
}
