package org.mpfl.compiler.plan;

import org.mpfl.ir.plan.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.mpfl.compiler.MpflCompiler;
import org.mpfl.compiler.TestDocuments;
import org.mpfl.compiler.gen.PlanBuilder;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.MpflType;
import org.mpfl.protocol.digest.Sha256;

/** Plans of every valid fixture and sample validate against docs/deployment-plan.schema.json and survive a JSON round trip. */
class DeploymentPlanTest {
    static final Path SCHEMA = Paths.get("../docs/deployment-plan.schema.json");

    static DeploymentPlan plan(Path document) throws IOException {
        // library files are not resolved: the samples' jar is built after this module in a clean build
        MpflCompiler.CheckResult result = new MpflCompiler(List.of()).check(Files.readAllBytes(document),
                document.getFileName().toString(), null, Map.of());
        assertTrue(result.ok(), () -> document + ": " + result.diagnostics().sorted());
        return PlanBuilder.build(result.workflow(), Files.readAllBytes(document));
    }

    static DeploymentPlan plan(byte[] document, String fileName) {
        MpflCompiler.CheckResult result = new MpflCompiler(List.of()).check(document, fileName, null, Map.of());
        assertTrue(result.ok(), () -> result.diagnostics().sorted().toString());
        return PlanBuilder.build(result.workflow(), document);
    }

    @TestFactory
    Stream<DynamicTest> plansValidateAndRoundTrip() throws IOException {
        JsonSchemaCheck schema = new JsonSchemaCheck(PlanJson.mapper().readTree(SCHEMA.toFile()));
        return TestDocuments.valid().stream().map(document -> DynamicTest.dynamicTest(document.toString(), () -> {
            DeploymentPlan plan = plan(document);
            byte[] json = PlanJson.toBytes(plan);
            JsonNode tree = PlanJson.mapper().readTree(json);
            List<String> errors = schema.validate(tree);
            assertTrue(errors.isEmpty(), () -> document + " does not match the schema:\n" + String.join("\n", errors));
            DeploymentPlan back = PlanJson.readPlan(new ByteArrayInputStream(json));
            assertEquals(plan, back, "JSON round trip");
        }));
    }

    @Test
    void restartsGoesFromTheWorkflowIntoThePlanAndIsAbsentWhenNotGiven() throws IOException {
        DeploymentPlan plan = plan(Paths.get("src/test/resources/fixtures/valid/checkpoint.mpfl.xml"));
        assertEquals(2, plan.restarts());
        assertEquals(2, PlanJson.mapper().readTree(PlanJson.toBytes(plan)).get("restarts").asInt());
        DeploymentPlan heat = plan(Paths.get("src/test/resources/fixtures/valid/heat1d.mpfl.xml"));
        assertNull(heat.restarts());
        assertTrue(PlanJson.mapper().readTree(PlanJson.toBytes(heat)).path("restarts").isMissingNode()
                || PlanJson.mapper().readTree(PlanJson.toBytes(heat)).path("restarts").isNull());
    }

    @Test
    void planHoldsHeaderParamsAndProcesses() throws IOException {
        Path heat = Paths.get("src/test/resources/fixtures/valid/heat1d.mpfl.xml");
        DeploymentPlan plan = plan(heat);
        assertEquals("heat1d", plan.workflow());
        assertEquals("1", plan.version());
        assertEquals(Sha256.hex(Files.readAllBytes(heat)), plan.sourceSha256());
        assertEquals(64, plan.sourceSha256().length());
        assertEquals(new PlanParam("eps", MpflType.DOUBLE, 1e-6, false, plan.params().get(2).at()), plan.params().get(2));
        PlanProcess solver = plan.process("solver");
        assertEquals("HeatSolver", solver.service());
        assertEquals(4, solver.ranksWithDefaults());
        assertEquals("solver.aar", solver.archive());
        assertEquals("lib/heat-activities.jar", plan.libraries().get(0).archiveEntry());
        assertTrue(solver.program().body().get(1) instanceof IrActivity.For);
    }

    @Test
    void requiredParamsHaveNoDefaultAndRanksAreLeftToRunTime() throws IOException {
        byte[] doc = ("<workflow xmlns='urn:mpfl:1.0' name='w'><param name='n' type='int'/>"
                + "<process name='p' ranks='n * 2'/></workflow>").getBytes();
        DeploymentPlan plan = plan(doc, "w.mpfl.xml");
        assertTrue(plan.params().get(0).required());
        assertNull(plan.params().get(0).defaultValue());
        assertNull(plan.processes().get(0).ranksWithDefaults());
        assertTrue(plan.processes().get(0).ranks() instanceof IrExpr.Binary);
    }

    /**
     * A run started from a plan (mpflc run --hosts N, --engine, a REST client) is refused before any rank starts when a
     * required param has no value, at its {@code <param>}: the plan carries where each param is declared. A plan written
     * before it did (no "at") still reads, and is refused at its document as a whole.
     */
    @Test
    void aRunWithoutARequiredValueIsRefusedAtTheParamsDeclaration() throws IOException {
        byte[] doc = ("<workflow xmlns='urn:mpfl:1.0' name='w'>\n  <param name='n' type='int'/>\n"
                + "  <param name='m' type='int' default='2'/>\n  <process name='p' ranks='n * m'/>\n</workflow>\n").getBytes();
        DeploymentPlan plan = plan(doc, "w.mpfl.xml");
        assertEquals("w.mpfl.xml:2:3", plan.params().get(0).at().toString());
        assertEquals("w.mpfl.xml:2:3", PlanJson.mapper().readTree(PlanJson.toBytes(plan)).at("/params/0/at").asText());
        assertEquals(List.of("w.mpfl.xml:2:3: error: param 'n' has no value: it has no default, so give it with --param n=VALUE"),
                plan.unvaluedParams(Map.of("m", 3), ParamValues.Naming.COMMAND_LINE));
        assertEquals(List.of("w.mpfl.xml:2:3: error: param 'n' has no value: it has no default, so give it with 'params.n' (VALUE)"),
                plan.unvaluedParams(null, ParamValues.Naming.JSON_FIELD));
        assertEquals(List.of(), plan.unvaluedParams(Map.of("n", 3), ParamValues.Naming.COMMAND_LINE));
        assertEquals(List.of(), plan.withParamValues(Map.of("n", 3)).unvaluedParams(Map.of(), ParamValues.Naming.COMMAND_LINE),
                "a value given at compilation is the plan's default");

        com.fasterxml.jackson.databind.node.ObjectNode older = (com.fasterxml.jackson.databind.node.ObjectNode)
                PlanJson.mapper().readTree(PlanJson.toBytes(plan));
        older.withArray("params").forEach(param -> ((com.fasterxml.jackson.databind.node.ObjectNode) param).remove("at"));
        assertTrue(new JsonSchemaCheck(PlanJson.mapper().readTree(SCHEMA.toFile())).validate(older).isEmpty(),
                "a plan without 'at' is still valid");
        DeploymentPlan read = PlanJson.readPlan(older);
        assertNull(read.params().get(0).at());
        assertEquals(List.of("w.mpfl.xml: error: param 'n' has no value: it has no default, so give it with --param n=VALUE"),
                read.unvaluedParams(Map.of(), ParamValues.Naming.COMMAND_LINE));
    }
}
