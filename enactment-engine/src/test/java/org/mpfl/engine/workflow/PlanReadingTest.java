package org.mpfl.engine.workflow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.mpfl.ir.eval.ProcessLayout;
import org.mpfl.ir.plan.DeploymentPlan;
import org.mpfl.ir.plan.PlanJson;
import org.mpfl.ir.spi.WorkflowCompiler;
import org.mpfl.engine.json.Json;

/** The engine reads plans with the compiler's PlanJson and lays ranks out with its ProcessLayout. */
class PlanReadingTest {

    @Test
    void shortHandWrittenPlanIsRead() throws IOException {
        DeploymentPlan plan = PlanJson.readPlan(Json.MAPPER.valueToTree(Map.of("workflow", "w", "processes",
                List.of(Map.of("name", "a", "ranks", 2), Map.of("name", "b", "service", "S", "size", 3)),
                "params", Map.of("n", Map.of("default", 5), "m", "x"))));
        assertEquals("w", plan.workflow());
        assertEquals("a", plan.process("a").service());
        assertEquals(Map.of("n", 5, "m", "x"), plan.defaults());
        ProcessLayout layout = plan.layout(plan.paramValues(Map.of()));
        assertEquals(List.of("a", "b"), layout.processes());
        assertEquals(2, layout.first("b"));
        assertEquals(5, layout.worldSize());
        assertThrows(IOException.class, () -> PlanJson.readPlan(Json.MAPPER.valueToTree(Map.of("workflow", "w",
                "processes", List.of(Map.of("name", "a", "ranks", 0))))));
    }

    @Test
    void compiledPlanCountsFollowTheRunsParams() throws Exception {
        Path document = Path.of("..", "samples", "ring", "ring.mpfl.xml");
        WorkflowCompiler.Compiled c = Compilers.forFile(document).compile(document.toString(), Files.readString(document),
                Map.of("ranks", "3"));
        assertEquals(3, c.plan().defaults().get("ranks"), "the run's values become the plan's defaults");
        DeploymentPlan read = PlanJson.readPlan(c.planJson());
        assertEquals(3, read.layout(read.paramValues(Map.of())).worldSize());
        assertEquals(6, read.layout(read.paramValues(Map.of("ranks", 6L))).worldSize(), "numbers take the declared type");
        assertTrue(c.archives().containsKey("RingNode"));
    }
}
