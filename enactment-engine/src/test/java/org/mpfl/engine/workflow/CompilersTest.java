package org.mpfl.engine.workflow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.mpfl.ir.spi.WorkflowCompiler;

/**
 * The engine finds the compiler proper through ServiceLoader (it compiles against mpfl-ir only), and
 * says what is missing when it is not installed instead of failing with a class-loading error.
 */
class CompilersTest {
    private static final String RING = """
            <?xml version="1.0" encoding="UTF-8"?>
            <workflow xmlns="urn:mpfl:1.0" name="tiny">
              <process name="node" ranks="2" service="Node">
                <var name="x" type="int" init="rank"/>
                <output name="x" value="x"/>
              </process>
            </workflow>
            """;

    @Test
    void theCompilerProperIsFoundOnTheClassPath() throws Exception {
        WorkflowCompiler.Compiled c = Compilers.standard().compile("tiny.mpfl.xml", RING, Map.of());
        assertEquals("tiny", c.plan().workflow());
        assertEquals(1, c.archives().size(), c.archives().keySet().toString());
        assertTrue(Compilers.standard().graphDot("tiny.mpfl.xml", RING, Map.of()).contains("digraph"));
    }

    @Test
    void withoutACompilerEveryDocumentIsRefusedWithTheReason() {
        WorkflowCompiler none = Compilers.compiler(null, null);
        WorkflowCompiler.CompileException e = assertThrows(WorkflowCompiler.CompileException.class,
                () -> none.compile("tiny.mpfl.xml", RING, Map.of()));
        assertEquals(1, e.diagnostics().size());
        assertTrue(e.diagnostics().get(0).startsWith("tiny.mpfl.xml:1:1: error: this engine has no MPFL compiler"),
                e.diagnostics().get(0));
        assertTrue(e.getMessage().contains("org.mpfl.ir.spi.WorkflowCompilerProvider"), e.getMessage());
        assertThrows(WorkflowCompiler.CompileException.class, () -> none.graphDot("tiny.mpfl.xml", RING, Map.of()));
    }
}
