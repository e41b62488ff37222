package org.mpfl.runtime.collective;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.function.Function;

/** The collective suite over in-memory channels (no runtime): the algorithms alone, with native bstore forwarding. */
class MemoryCollectivesTest extends CollectiveSuite {
    protected CollectiveConfig config() {
        return CollectiveConfig.defaults();
    }

    /** Ranks are placed round-robin on this many simulated hosts. */
    protected int hostCount() {
        return 2;
    }

    /** The in-memory world of p ranks the suite runs on. */
    protected MemoryChannels world(int p) {
        return new MemoryChannels(p, true).withHosts(hostCount());
    }

    @Override
    protected Object[] run(int p, Function<Coll, Object> body) {
        MemoryChannels world = world(p);
        CollectiveConfig config = config();
        Object[] out = RankThreads.run(p, 120, rank -> {
            CollectiveChannel ch = world.channel(rank, 1);
            return body.apply(Coll.of(new Collectives(ch, config), ch));
        });
        assertEquals(0, world.pending(), "messages or receives left over after the run");
        return out;
    }
}
