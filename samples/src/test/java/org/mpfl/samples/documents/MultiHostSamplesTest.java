package org.mpfl.samples.documents;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mpfl.testing.lab.NetworkLab;
import org.mpfl.testing.StartsProcesses;

/**
 * A sample with real activity code across machines: heat2d's halo exchange with its ranks on three
 * hosts in network namespaces of their own ({@link NetworkLab}), giving exactly the result of a run
 * on one machine. The lab lives in the engine's test-jar; heat2d lives here, where its activity jar is.
 * The one-machine run is {@code mpflc run --local}, its ranks in this JVM (SamplesRunTest shows they give
 * what host processes give), so no second engine and hosts start beside the lab.
 */
@Timeout(300)
@StartsProcesses
class MultiHostSamplesTest {
    private static final String[] PARAMS = {"rows=12", "columns=12", "ranks=6", "tolerance=0.1"};
    private static NetworkLab lab;

    @BeforeAll
    static void start() throws Exception {
        lab = NetworkLab.builder().hosts(3).capacity(2).tls().start();
    }

    @AfterAll
    static void stop() {
        if (lab != null) {
            lab.close();
        }
    }

    @Test
    void heat2dConvergesAcrossThreeHostsAsOnOne() throws Exception {
        JsonNode r = lab.runDocument(Path.of("heat2d", "heat2d.mpfl.xml"), PARAMS);
        assertEquals("SUCCEEDED", r.path("state").asText(), r + "\n" + lab.logs());
        assertEquals(Set.of("h1", "h2", "h3"), lab.placement(r.path("run").asText()), "every host holds ranks");
        JsonNode oneMachine = SamplesRunTest.runSummary("heat2d", List.of("--local"), PARAMS).path("outputs");
        assertEquals(true, oneMachine.at("/converged/0").asBoolean(), oneMachine.toString());
        assertEquals(oneMachine, r.path("outputs"), "the same iterations and residual, to the bit");
    }
}
