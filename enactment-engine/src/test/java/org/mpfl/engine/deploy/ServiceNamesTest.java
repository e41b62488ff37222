package org.mpfl.engine.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The names a workflow's services are deployed under, and telling them from plain (hand-installed) ones. */
class ServiceNamesTest {
    @Test
    void theNamesTheEngineQualifiesAreToldFromPlainOnes() {
        String versioned = ServiceNames.ofVersion("ring", 3, "RingNode");
        String perRun = ServiceNames.ofArchive("ring", "an archive".getBytes(StandardCharsets.UTF_8), "RingNode");
        assertEquals("ring.v3.RingNode", versioned);
        assertTrue(ServiceNames.qualified(versioned), versioned);
        assertTrue(ServiceNames.qualified(perRun), perRun);
        assertFalse(ServiceNames.qualified("RingNode"));
        assertFalse(ServiceNames.qualified("ring"));
        assertFalse(ServiceNames.qualified("ring.vx.RingNode"));
        assertFalse(ServiceNames.qualified("ring.v1.Ring.Node"));
        String unqualifiable = ServiceNames.ofVersion("w".repeat(120), 1, "RingNode");
        assertFalse(ServiceNames.qualified(unqualifiable), "a name too long to qualify stays plain: " + unqualifiable);
    }
}
