package org.mpfl.runtime.collective;

import java.time.Duration;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.mpfl.runtime.p2p.InProcessCluster;
import org.mpfl.runtime.p2p.MessagingSettings;

/** The collective suite over the real runtime, all ranks in one host (local transport, native bstore). */
class LocalRuntimeCollectivesTest extends CollectiveSuite {
    private static InProcessCluster cluster;

    @BeforeAll
    static void start() {
        cluster = InProcessCluster.start(1, MessagingSettings.fromSystemProperties());
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @Override
    protected Object[] run(int p, Function<Coll, Object> body) {
        return RuntimeRanks.run(cluster, new int[p], "auto", Duration.ofSeconds(120), c -> body.apply(Coll.of(c)));
    }
}
