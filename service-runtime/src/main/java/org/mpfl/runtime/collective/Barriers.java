package org.mpfl.runtime.collective;

import java.util.ArrayList;
import java.util.List;
import org.mpfl.runtime.api.Request;

/**
 * Barrier algorithms. Their messages are one shared empty array, and a rank never waits for its own
 * signals to be delivered: nothing can modify the payload, the runtime delivers queued messages in
 * order (and fails the rank if it cannot), and what the barrier guarantees comes from the signals a
 * rank receives. Waiting for the delivery acknowledgement would add one network latency per round.
 */
final class Barriers {
    static final byte[] EMPTY = new byte[0];

    private Barriers() {
    }

    /** Dissemination: ceil(log2 p) rounds; in round k every rank signals rank + 2^k and waits for rank - 2^k. */
    static void dissemination(CollectiveChannel ch, int seq) {
        int p = ch.size();
        int me = ch.rank();
        int tag = Tags.of(seq, Tags.BARRIER);
        for (int d = 1; d < p; d <<= 1) {
            ch.isend(EMPTY, (me + d) % p, tag);
            ch.recv((me - d + p) % p, tag);
        }
    }

    /** Flat: everybody signals rank 0, which then releases everybody. */
    static void serial(CollectiveChannel ch, int seq) {
        int p = ch.size();
        int me = ch.rank();
        int up = Tags.of(seq, Tags.BARRIER);
        int down = Tags.of(seq, Tags.BARRIER_DOWN);
        if (me != 0) {
            ch.isend(EMPTY, 0, up);
            ch.recv(0, down);
            return;
        }
        List<Request> recvs = new ArrayList<>(p - 1);
        for (int i = 1; i < p; i++) {
            recvs.add(ch.irecv(i, up));
        }
        Requests.awaitAll(recvs);
        for (int i = 1; i < p; i++) {
            ch.isend(EMPTY, i, down);
        }
    }

    /** Fan-in up the binomial tree rooted at 0, then fan-out down it. */
    static void binomial(CollectiveChannel ch, int seq) {
        int p = ch.size();
        int me = ch.rank();
        int up = Tags.of(seq, Tags.BARRIER);
        int down = Tags.of(seq, Tags.BARRIER_DOWN);
        int[] children = BinomialTree.children(me, 0, p);
        for (int c : children) {
            ch.recv(c, up);
        }
        if (me != 0) {
            int parent = BinomialTree.parent(me, 0, p);
            ch.isend(EMPTY, parent, up);
            ch.recv(parent, down);
        }
        for (int c : children) {
            ch.isend(EMPTY, c, down);
        }
    }
}
