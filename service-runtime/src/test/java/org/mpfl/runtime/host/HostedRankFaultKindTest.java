package org.mpfl.runtime.host;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.mpfl.protocol.FaultKind;
import org.mpfl.runtime.api.DeliveryException;
import org.mpfl.runtime.api.DomainAbortedException;
import org.mpfl.runtime.interp.RankFault;
import org.mpfl.runtime.transport.TransportException;

/**
 * The kind a host reports with a rank's FAILED state ({@link HostedRank#faultOf}): the interpreter's fault says its
 * own; a rank program's delivery or transport failure is the infrastructure's; any other exception is the workflow's,
 * whatever its message says.
 */
class HostedRankFaultKindTest {
    @Test
    void aLocatedFailureSaysItsOwnKind() {
        assertEquals(FaultKind.INFRASTRUCTURE, HostedRank.faultOf(RankFault.infrastructure("send", null, "peer unreachable: x", null)));
        assertEquals(FaultKind.WORKFLOW, HostedRank.faultOf(new RankFault("compute", null, "kernel worker lost: just kidding")));
    }

    @Test
    void aProgramsDeliveryOrTransportFailureIsTheInfrastructures() {
        assertEquals(FaultKind.INFRASTRUCTURE, HostedRank.faultOf(new DeliveryException("send to rank 2 failed", null)));
        assertEquals(FaultKind.INFRASTRUCTURE, HostedRank.faultOf(new TransportException("binary channel closed", true, null)));
    }

    @Test
    void anyOtherExceptionOfAProgramIsTheWorkflowsWhateverItsMessage() {
        assertEquals(FaultKind.WORKFLOW, HostedRank.faultOf(new IllegalStateException("peer unreachable: not really")));
        assertEquals(FaultKind.WORKFLOW, HostedRank.faultOf(new RuntimeException("DeliveryException: a program's own words")));
        assertEquals(FaultKind.WORKFLOW, HostedRank.faultOf(new DomainAbortedException("domain d aborted")));
    }
}
