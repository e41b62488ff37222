package org.mpfl.engine.run;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.mpfl.protocol.FaultKind;

/**
 * Which rank failures a run may restart after: those its host says are the infrastructure's (a kernel worker
 * killed from outside, a peer unreachable); a workflow's fault, and a failure whose host says no kind, are not.
 */
class RestartPolicyTest {
    @Test
    void aFaultItsHostSaysIsTheInfrastructuresIsOne() {
        assertTrue(RestartPolicy.infrastructure(FaultKind.INFRASTRUCTURE));
    }

    @Test
    void aWorkflowsFaultAndAFailureThatSaysNoKindAreNot() {
        assertFalse(RestartPolicy.infrastructure(FaultKind.WORKFLOW));
        assertFalse(RestartPolicy.infrastructure(null), "a host that says no kind: the workflow's");
    }
}
