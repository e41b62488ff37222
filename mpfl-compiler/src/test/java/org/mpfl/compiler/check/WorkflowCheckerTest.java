package org.mpfl.compiler.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.mpfl.compiler.MpflCompiler;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.IrProcess;
import org.mpfl.ir.IrWorkflow;
import org.mpfl.ir.MpflType;
import org.mpfl.ir.eval.ProcessLayout;

/** The IR the checker produces: defaults filled in, names resolved, promotions explicit. */
class WorkflowCheckerTest {

    private static MpflCompiler.CheckResult check(String body, List<WorkflowAnalysis> analyses) {
        String doc = "<workflow xmlns='urn:mpfl:1.0' name='w'>\n<param name='n' type='int' default='3'/>\n"
                + "<process name='a' ranks='n'>\n" + body + "\n</process>\n<process name='b' ranks='2 * n'/>\n</workflow>";
        return new MpflCompiler(analyses).check(doc.getBytes(StandardCharsets.UTF_8), "w.mpfl.xml", null, Map.of());
    }

    private static IrProcess process(String body) {
        MpflCompiler.CheckResult result = check(body, List.of());
        assertFalse(result.diagnostics().hasErrors(), () -> result.diagnostics().sorted().toString());
        return result.workflow().process("a");
    }

    @Test
    void pointToPointDefaultsAreFilledIn() {
        IrProcess p = process("<var name='x' type='long'/><send to='1' data='x'/>"
                + "<receive from='any' into='x' tag='any'/><receive from='0' into='x' timeout='10'/>");
        IrActivity.Send send = (IrActivity.Send) p.body().get(0);
        assertEquals("world", send.comm());
        assertEquals(IrActivity.SendMode.STANDARD, send.mode());
        assertEquals(new IrExpr.Const(MpflType.INT, 0, send.at()), send.tag());
        IrActivity.Receive any = (IrActivity.Receive) p.body().get(1);
        assertNull(any.from(), "any source");
        assertNull(any.tag(), "any tag");
        assertEquals(MpflType.LONG, any.into().type());
        IrActivity.Receive timed = (IrActivity.Receive) p.body().get(2);
        assertEquals(MpflType.LONG, timed.timeout().type(), "timeouts are widened to long");
        assertInstanceOf(IrExpr.Convert.class, timed.timeout());
        assertEquals(new IrExpr.Const(MpflType.INT, 0, timed.at()), timed.tag());
    }

    @Test
    void namesResolveToTheirKind() {
        IrProcess p = process("<var name='v' type='double'/><for var='i' from='0' to='n'>"
                + "<assign to='v' value='v + i + rank'/></for>");
        IrActivity.For loop = (IrActivity.For) p.body().get(0);
        IrActivity.Assign assign = (IrActivity.Assign) loop.body().get(0);
        List<IrExpr.Ref> refs = new ArrayList<>();
        collect(assign.value(), refs);
        assertEquals(List.of(IrExpr.RefKind.VAR, IrExpr.RefKind.LOOP, IrExpr.RefKind.BUILTIN),
                refs.stream().map(IrExpr.Ref::ref).toList());
        assertEquals(IrExpr.RefKind.PARAM, ((IrExpr.Ref) loop.to()).ref());
        assertEquals(MpflType.DOUBLE, assign.value().type());
    }

    private static void collect(IrExpr e, List<IrExpr.Ref> refs) {
        if (e instanceof IrExpr.Ref r) {
            refs.add(r);
        } else if (e instanceof IrExpr.Binary b) {
            collect(b.left(), refs);
            collect(b.right(), refs);
        } else if (e instanceof IrExpr.Convert c) {
            collect(c.operand(), refs);
        }
    }

    @Test
    void communicatorsAndRequestsAreListedPerProcess() {
        IrProcess p = process("<var name='x' type='int'/><split name='half' color='rank % 2'/>"
                + "<cartesian name='g' comm='half' dims='2, 1'/><isend to='0' data='1' request='r'/><wait request='r'/>");
        assertEquals(List.of("half", "g"), p.communicators());
        assertEquals(List.of("r"), p.requests());
        IrActivity.Cartesian cart = (IrActivity.Cartesian) p.body().get(1);
        assertEquals("half", cart.comm());
        assertEquals(1, cart.periodic().size(), "one periodic flag for all dimensions by default");
    }

    @Test
    void layoutNumbersRanksOverProcessesInOrder() {
        IrWorkflow w = check("", List.of()).workflow();
        ProcessLayout layout = ProcessLayout.of(w, Map.of("n", 3));
        assertEquals(9, layout.worldSize());
        assertEquals(3, layout.first("b"));
        assertEquals(6, layout.count("b"));
        assertEquals("a", layout.processOf(2));
        assertEquals("b", layout.processOf(3));
    }

    @Test
    void analysesRunOnlyOnErrorFreeWorkflowsWithTheParamValues() {
        List<Map<String, Object>> seen = new ArrayList<>();
        WorkflowAnalysis recorder = (workflow, values, diagnostics) -> {
            seen.add(values);
            diagnostics.warning(workflow.at(), "analysed");
        };
        MpflCompiler.CheckResult clean = check("", List.of(recorder));
        assertEquals(List.of(Map.of("n", 3)), seen);
        assertTrue(clean.diagnostics().sorted().get(0).message().equals("analysed"));
        check("<assign to='nope' value='1'/>", List.of(recorder));
        assertEquals(1, seen.size(), "not called when typing failed");
    }

    @Test
    void walkVisitsNestedActivitiesAndTheirExpressions() {
        IrProcess p = process("<var name='x' type='int'/><var name='a' type='int[]' init='izeros(4)'/>"
                + "<while test='x lt n'><if test='x eq 1'><send to='x + 1' data='a[x]'/><else><break/></else></if>"
                + "<parallel><branch><assign to='a[x]' value='rank'/></branch></parallel></while>");
        List<String> kinds = new ArrayList<>();
        org.mpfl.ir.IrWalk.forEachActivity(p.body(), a -> kinds.add(a.getClass().getSimpleName()));
        assertEquals(List.of("While", "If", "Send", "Break", "Parallel", "Assign"), kinds);
        IrActivity.Send send = (IrActivity.Send) ((IrActivity.If) ((IrActivity.While) p.body().get(0)).body().get(0)).arms().get(0).body().get(0);
        List<String> read = new ArrayList<>();
        for (IrExpr e : org.mpfl.ir.IrWalk.expressions(send)) {
            org.mpfl.ir.IrWalk.references(e).forEach(r -> read.add(r.name()));
        }
        assertEquals(List.of("x", "a", "x"), read);
    }
}
