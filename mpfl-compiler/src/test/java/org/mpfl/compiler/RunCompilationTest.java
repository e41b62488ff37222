package org.mpfl.compiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.mpfl.ir.spi.WorkflowCompiler;

/**
 * A compilation for a run in this JVM ({@code mpflc run --local}) has the run's every param value: one without
 * default and without {@code --param} is refused at its {@code <param>} before any rank starts, as a newcomer
 * who forgot it needs, whereas a compilation for deployment leaves it to the run.
 */
class RunCompilationTest {
    private static final String DOCUMENT = """
            <workflow xmlns="urn:mpfl:1.0" name="t">
              <param name="flag" type="boolean"/>
              <param name="label" type="string"/>
              <param name="n" type="int" default="2"/>
              <process name="p" ranks="n">
                <if test="flag"><log message="label"/></if>
              </process>
            </workflow>
            """;

    @Test
    void aRunInThisJvmRefusesEveryParamWithoutValueAtItsDeclaration() {
        WorkflowCompiler.CompileException e = assertThrows(WorkflowCompiler.CompileException.class,
                () -> new MpflCompilerBridge(null).compileForThisJvm("t.mpfl.xml", DOCUMENT, Map.of()));
        assertEquals(List.of(
                "t.mpfl.xml:2:3: error: param 'flag' has no value: it has no default, so give it with --param flag=VALUE",
                "t.mpfl.xml:3:3: error: param 'label' has no value: it has no default, so give it with --param label=VALUE"),
                e.diagnostics());
    }

    @Test
    void givenValuesRunAndADeploymentNeedsNone() throws Exception {
        new MpflCompilerBridge(null).compileForThisJvm("t.mpfl.xml", DOCUMENT, Map.of("flag", "true", "label", "x"));
        new MpflCompilerBridge(null).compile("t.mpfl.xml", DOCUMENT, Map.of());
    }
}
