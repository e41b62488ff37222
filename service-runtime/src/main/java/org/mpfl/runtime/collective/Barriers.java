package org.mpfl.runtime.collective;

import java.util.ArrayList;
import java.util.List;
import org.mpfl.runtime.api.Request;

/** Barrier algorithms; their messages are empty byte arrays. */
final class Barriers {
    private static final byte[] EMPTY = new byte[0];

    private Barriers() {
    }

    /** Dissemination: ceil(log2 p) rounds; in round k every rank signals rank + 2^k and waits for rank - 2^k. */
    static void dissemination(CollectiveChannel ch, int seq) {
        int p = ch.size();
        int me = ch.rank();
        int tag = Tags.of(seq, Tags.BARRIER);
        for (int d = 1; d < p; d <<= 1) {
            Request sq = ch.isend(EMPTY, (me + d) % p, tag);
            ch.recv((me - d + p) % p, tag);
            sq.await();
        }
    }

    /** Flat: everybody signals rank 0, which then releases everybody. */
    static void serial(CollectiveChannel ch, int seq) {
        int p = ch.size();
        int me = ch.rank();
        int up = Tags.of(seq, Tags.BARRIER);
        int down = Tags.of(seq, Tags.BARRIER_DOWN);
        if (me != 0) {
            ch.send(EMPTY, 0, up);
            ch.recv(0, down);
            return;
        }
        List<Request> recvs = new ArrayList<>(p - 1);
        for (int i = 1; i < p; i++) {
            recvs.add(ch.irecv(i, up));
        }
        Requests.awaitAll(recvs);
        List<Request> sends = new ArrayList<>(p - 1);
        for (int i = 1; i < p; i++) {
            sends.add(ch.isend(EMPTY, i, down));
        }
        Requests.awaitAll(sends);
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
            ch.send(EMPTY, parent, up);
            ch.recv(parent, down);
        }
        List<Request> sends = new ArrayList<>(children.length);
        for (int c : children) {
            sends.add(ch.isend(EMPTY, c, down));
        }
        Requests.awaitAll(sends);
    }
}
