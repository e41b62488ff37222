package org.mpfl.runtime.collective;

import java.time.Duration;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.mpfl.runtime.p2p.InProcessCluster;
import org.mpfl.runtime.p2p.MessagingSettings;

/**
 * The collective suite with ranks spread round-robin over two hosts that talk over the binary TCP
 * channel (every other message crosses hosts), on p = 1, 2, 3, 5, 8 to keep it short.
 */
class TwoHostBinaryCollectivesTest extends CollectiveSuite {
    private static InProcessCluster cluster;

    @BeforeAll
    static void start() {
        cluster = InProcessCluster.start(2, MessagingSettings.fromSystemProperties());
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @Override
    protected int[] sizes() {
        return new int[] {1, 2, 3, 5, 8};
    }

    @Override
    protected Object[] run(int p, Function<Coll, Object> body) {
        return RuntimeRanks.run(cluster, RuntimeRanks.roundRobin(p, 2), "auto", Duration.ofSeconds(120),
                c -> body.apply(Coll.of(c)));
    }
}
