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
        assertEquals(new PlanParam("eps", MpflType.DOUBLE, 1e-6, false), plan.params().get(2));
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
        MpflCompiler.CheckResult result = new MpflCompiler(List.of()).check(doc, "w.mpfl.xml", null, Map.of());
        assertTrue(result.ok(), () -> result.diagnostics().sorted().toString());
        DeploymentPlan plan = PlanBuilder.build(result.workflow(), doc);
        assertTrue(plan.params().get(0).required());
        assertNull(plan.params().get(0).defaultValue());
        assertNull(plan.processes().get(0).ranksWithDefaults());
        assertTrue(plan.processes().get(0).ranks() instanceof IrExpr.Binary);
    }
}
