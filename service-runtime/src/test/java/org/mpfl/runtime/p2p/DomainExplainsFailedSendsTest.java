package org.mpfl.runtime.p2p;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.mpfl.runtime.api.DeliveryException;
import org.mpfl.runtime.api.DomainAbortedException;
import org.mpfl.runtime.api.MpiwsException;
import org.mpfl.runtime.transport.MemoryBudget;

/**
 * A send that a peer rejected because the domain was aborted there first is reported as the abort, as every other
 * rank reports it, not as a fault of its own ("peer unreachable"): the stress run of d886926 failed
 * CheckpointResumeTest when rank 3 on the same host sent to rank 2 in the moment between its own abort check and the
 * store, and reported the rejection instead of the abort.
 */
class DomainExplainsFailedSendsTest {

    private static Domain domain() {
        return new Domain("d-explain", "t".repeat(43), 2, 1 << 20, new MemoryBudget(1 << 20, 1 << 20), null, true);
    }

    @Test
    void aFailedSendOfAnAbortedDomainIsTheAbort() {
        Domain d = domain();
        d.abort("rank 1 failed: its checkpoint part is damaged");
        MpiwsException said = d.explain(new DeliveryException("message DATA from rank 3 to rank 2 was rejected", null));
        DomainAbortedException aborted = assertInstanceOf(DomainAbortedException.class, said);
        assertTrue(aborted.getMessage().contains("rank 1 failed: its checkpoint part is damaged"), aborted.getMessage());
    }

    @Test
    void aFailedSendOfALiveDomainStandsAfterTheGrace() {
        Domain d = domain();
        DeliveryException failure = new DeliveryException("host h2 is gone", null);
        long start = System.nanoTime();
        assertSame(failure, d.explain(failure));
        assertTrue(System.nanoTime() - start >= Domain.ABORT_GRACE_NANOS, "waited the grace for an abort first");
    }
}
