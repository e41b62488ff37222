package org.mpfl.runtime.topology;

import org.mpfl.runtime.api.Communicator;
import org.mpfl.runtime.p2p.P2PCommunicator;
import org.mpfl.runtime.p2p.RankInstance;

/**
 * The {@link RankRuntime} of one rank instance. It is the one place that looks behind the public
 * {@link Communicator} at the runtime's own classes ({@link P2PCommunicator} for member world
 * ranks, {@link CollectiveCommunicator} for the collectives engine), so rank programs need not.
 */
final class InstanceRankRuntime implements RankRuntime {
    private final RankInstance rank;

    InstanceRankRuntime(RankInstance rank) {
        this.rank = rank;
    }

    @Override
    public void checkUsable() {
        rank.checkUsable();
    }

    @Override
    public boolean isAborted() {
        return rank.domain().isAborted();
    }

    @Override
    public int worldRankOf(Communicator comm, int r) {
        return comm instanceof P2PCommunicator p ? p.worldRankOf(r) : r;
    }

    @Override
    public void barrier(Communicator comm, String algorithm) {
        if (comm instanceof CollectiveCommunicator cc) {
            cc.collectives().barrier(algorithm);
        } else {
            comm.barrier();
        }
    }

    @Override
    public long bytesSent() {
        return rank.counters().bytesSent();
    }
}
