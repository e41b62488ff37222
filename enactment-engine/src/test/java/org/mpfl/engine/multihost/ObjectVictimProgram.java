package org.mpfl.engine.multihost;

import java.time.Duration;
import org.mpfl.runtime.api.Communicator;
import org.mpfl.runtime.api.RankContext;
import org.mpfl.runtime.api.RankProgram;
import org.mpfl.testing.attack.ObjectReceipt;
import org.mpfl.testing.attack.gadget.TripwireMarks;

/**
 * The victim of {@link AttackTest}'s compromised rank: rank 1 receives {@code n} messages with tag 5
 * that the attacker sends in rank 0's name (rank 0 itself sends nothing) and outputs for each what it
 * got ({@code m0}, {@code m1}, … as {@link ObjectReceipt} words it), then which of the
 * {@link org.mpfl.testing.attack.gadget.Tripwire}'s side effects happened in its JVM ({@code marks}).
 * Its allow-list is this package, which the gadget is not in. The runtime's one-machine counterpart
 * is its messaging scenario {@code objectVictim}.
 */
public final class ObjectVictimProgram implements RankProgram {
    /** The service type under which the lab's hosts publish this program. */
    public static final String SERVICE = "mpfl.test.ObjectVictim";

    @Override
    public void run(RankContext ctx) {
        Communicator w = ctx.world();
        if (w.rank() != 1) {
            return;
        }
        int n = ((Number) ctx.params().getOrDefault("n", 1)).intValue();
        for (int i = 0; i < n; i++) {
            ctx.output("m" + i, ObjectReceipt.of(() -> w.recv(0, 5, Duration.ofSeconds(20)).value()));
        }
        ctx.output("marks", TripwireMarks.marks());
    }
}
