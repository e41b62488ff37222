package org.mpfl.runtime.interp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.mpfl.ir.diag.SourceLocation;
import org.mpfl.runtime.api.DeliveryException;
import org.mpfl.runtime.api.ReceiveTimeoutException;
import org.mpfl.protocol.FaultKind;

/**
 * Whose fault an interpreted rank's fault is, decided where the interpreter makes it ({@link Faults}): a peer
 * unreachable is the infrastructure's; everything else — a message that merely says so too — is the workflow's.
 */
class FaultKindTest {
    private static final SourceLocation AT = new SourceLocation("w.mpfl.xml", 9, 5);

    @Test
    void aPeerUnreachableIsTheInfrastructures() {
        RankFault f = (RankFault) Faults.at("send", AT, new DeliveryException("send to rank 1 failed", null));
        assertEquals("peer unreachable: send to rank 1 failed", f.getMessage());
        assertEquals(FaultKind.INFRASTRUCTURE, f.fault());
    }

    @Test
    void everyOtherFaultIsTheWorkflowsWhateverItsMessageSays() {
        assertEquals(FaultKind.WORKFLOW, ((RankFault) Faults.at("receive", AT, new ReceiveTimeoutException("no message"))).fault());
        assertEquals(FaultKind.WORKFLOW, ((RankFault) Faults.at("compute", AT, new RuntimeException("peer unreachable: x"))).fault());
        assertEquals(FaultKind.WORKFLOW, ((RankFault) Faults.at("compute", AT,
                new IllegalStateException("kernel worker lost: just kidding"))).fault());
        assertEquals(FaultKind.WORKFLOW, Faults.of("fail", AT, "peer unreachable: said the workflow").fault());
    }
}
