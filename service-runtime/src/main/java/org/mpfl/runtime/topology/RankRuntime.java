package org.mpfl.runtime.topology;

import org.mpfl.runtime.api.Communicator;
import org.mpfl.runtime.api.RankContext;
import org.mpfl.runtime.p2p.RankInstance;

/**
 * What the runtime offers an internal rank program (the rank interpreter) about one rank beyond the
 * public {@link Communicator} and {@link RankContext}: the rank's abort and failure state, the world
 * rank behind a communicator rank (for wait-for reports), and collectives with a named algorithm
 * where the public API has none (barrier). A program gets it from the context it is handed
 * ({@link #of(RankContext)}): the service host's rank context is a {@link Provider}; a hand-made
 * context without one gets {@link #DETACHED}, which checks nothing and reports communicator ranks.
 */
public interface RankRuntime {

    /** Offered by a {@link RankContext} whose rank runs on this runtime (the service host's). */
    interface Provider {
        RankRuntime rankRuntime();
    }

    /** For contexts without a runtime behind them: never aborted, ranks as given, the plain barrier. */
    RankRuntime DETACHED = new RankRuntime() {
        @Override
        public void checkUsable() {
        }

        @Override
        public boolean isAborted() {
            return false;
        }

        @Override
        public int worldRankOf(Communicator comm, int rank) {
            return rank;
        }

        @Override
        public void barrier(Communicator comm, String algorithm) {
            comm.barrier();
        }
    };

    /** The runtime of the rank behind {@code context}, or {@link #DETACHED} if the context offers none. */
    static RankRuntime of(RankContext context) {
        return context instanceof Provider p ? p.rankRuntime() : DETACHED;
    }

    /** The runtime of a rank instance of this host. */
    static RankRuntime of(RankInstance rank) {
        return new InstanceRankRuntime(rank);
    }

    /**
     * Throws {@link org.mpfl.runtime.api.DomainAbortedException} once the rank's domain was aborted,
     * or the rank's messaging failure (cheap: volatile reads).
     */
    void checkUsable();

    /** Whether the rank's domain was aborted. */
    boolean isAborted();

    /**
     * The world rank of rank {@code rank} of {@code comm} (a communicator of this rank); {@code rank}
     * itself when {@code comm} is not one of the runtime's communicators.
     */
    int worldRankOf(Communicator comm, int rank);

    /**
     * A barrier over {@code comm} with the named algorithm ({@code auto} or one of
     * {@link org.mpfl.runtime.collective.Collectives#algorithms}); the communicator's own barrier when
     * it has no algorithm choice.
     */
    void barrier(Communicator comm, String algorithm);

    /**
     * Payload bytes this rank has sent so far over all destinations (the message counters' sum), or
     * {@code -1} when the runtime does not count; trace spans take the difference around an operation.
     */
    default long bytesSent() {
        return -1;
    }
}
