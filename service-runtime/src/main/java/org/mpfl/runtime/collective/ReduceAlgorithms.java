package org.mpfl.runtime.collective;

import java.lang.reflect.Array;
import org.mpfl.runtime.api.ReduceOp;
import org.mpfl.runtime.api.Request;

/**
 * Reduce, allreduce and scan on operands ({@link Reductions#operand}: primitive arrays). The
 * caller's operand is never modified: a rank copies it once into its accumulator, or sends it
 * as it is when it has nothing to add; received arrays are fresh and are reduced into in place.
 * All operators are commutative, so a step may reduce into whichever buffer avoids a copy.
 */
final class ReduceAlgorithms {
    private ReduceAlgorithms() {
    }

    // ------------------------------------------------------------------------------------ reduce

    /** The root receives everything and reduces in rank order. */
    static Object reduceSerial(CollectiveChannel ch, int seq, Object operand, ReduceOp op, int root) {
        int p = ch.size();
        int me = ch.rank();
        int tag = Tags.of(seq, Tags.REDUCE);
        if (me != root) {
            ch.send(operand, root, tag);
            return null;
        }
        Request[] recvs = new Request[p];
        for (int i = 0; i < p; i++) {
            if (i != root) {
                recvs[i] = ch.irecv(i, tag);
            }
        }
        Object acc = root == 0 ? Reductions.copy(operand) : recvs[0].await().value();
        for (int i = 1; i < p; i++) {
            Reductions.combine(op, acc, i == root ? operand : recvs[i].await().value());
        }
        return acc;
    }

    static Object reduceBinomial(CollectiveChannel ch, int seq, Object operand, ReduceOp op, int root) {
        int p = ch.size();
        int me = ch.rank();
        int tag = Tags.of(seq, Tags.REDUCE);
        int[] children = BinomialTree.children(me, root, p);
        Object acc = operand;
        if (children.length > 0) {
            Request[] recvs = new Request[children.length];
            for (int k = 0; k < children.length; k++) {
                recvs[k] = ch.irecv(children[children.length - 1 - k], tag); // smallest subtree first: it arrives first
            }
            acc = Reductions.copy(operand);
            for (Request r : recvs) {
                Reductions.combine(op, acc, r.await().value());
            }
        }
        if (me == root) {
            return acc == operand ? Reductions.copy(operand) : acc;
        }
        ch.send(acc, BinomialTree.parent(me, root, p), tag);
        return null;
    }

    // ------------------------------------------------------------------------------------ allreduce

    static Object allreduceReduceBroadcast(CollectiveChannel ch, int seq, Object operand, ReduceOp op) {
        Object reduced = reduceBinomial(ch, seq, operand, op, 0);
        return Broadcasts.tree(ch, seq, reduced, 0, false);
    }

    /**
     * Recursive doubling; a size that is not a power of two first folds the first {@code 2r} ranks
     * ({@code r = p - 2^k}) pairwise: even ranks hand their operand to the odd neighbour, wait, and
     * get the result from it at the end.
     */
    static Object allreduceRecursiveDoubling(CollectiveChannel ch, int seq, Object operand, ReduceOp op) {
        int p2 = Integer.highestOneBit(ch.size());
        Fold fold = Fold.in(ch, seq, operand, op);
        if (fold.handedOff) {
            return fold.acc;
        }
        Object acc = fold.acc;
        int tag = Tags.of(seq, Tags.ALLREDUCE);
        for (int d = 1; d < p2; d <<= 1) {
            int partner = fold.partner(fold.newRank ^ d);
            // acc is internal and never modified after this send, so the send is not waited for
            ch.isend(acc, partner, tag);
            Object theirs = ch.recv(partner, tag).value();
            // reduce into the fresh buffer: the one being sent stays untouched
            Reductions.combine(op, theirs, acc);
            acc = theirs;
        }
        return fold.finish(acc);
    }

    /**
     * Rabenseifner's bandwidth-optimal allreduce: reduce-scatter by recursive halving (each of the
     * {@code 2^k} participants ends up owning one reduced block), then allgather by recursive
     * doubling; non-powers of two fold as in recursive doubling. Every element is sent about twice
     * in total, whatever p is. Operands shorter than the number of participants use recursive doubling.
     */
    static Object allreduceReduceScatterAllgather(CollectiveChannel ch, int seq, Object operand, ReduceOp op) {
        int p2 = Integer.highestOneBit(ch.size());
        int length = Array.getLength(operand);
        if (length < p2) {
            return allreduceRecursiveDoubling(ch, seq, operand, op);
        }
        Fold fold = Fold.in(ch, seq, operand, op);
        if (fold.handedOff) {
            return fold.acc;
        }
        Object acc = fold.acc;
        int newRank = fold.newRank;
        int tag = Tags.of(seq, Tags.ALLREDUCE);
        // reduce-scatter: the block range [lo, hi) halves each step; the high bit of newRank picks the half first
        int lo = 0;
        int hi = p2;
        for (int d = p2 >> 1; d >= 1; d >>= 1) {
            int partnerNew = newRank ^ d;
            int partner = fold.partner(partnerNew);
            int mid = lo + d;
            boolean keepLow = (newRank & d) == 0;
            int keepLo = keepLow ? lo : mid;
            int keepHi = keepLow ? mid : hi;
            int sendLo = keepLow ? mid : lo;
            int sendHi = keepLow ? hi : mid;
            int keepOff = BlockDistribution.offset(length, p2, keepLo);
            int keepLen = BlockDistribution.offset(length, p2, keepHi) - keepOff;
            int sendOff = BlockDistribution.offset(length, p2, sendLo);
            int sendLen = BlockDistribution.offset(length, p2, sendHi) - sendOff;
            Request rq = ch.irecv(partner, tag);
            Request sq = ch.isendRange(acc, sendOff, sendLen, partner, tag);
            Object theirs = rq.await().value();
            Reductions.combine(op, acc, keepOff, theirs, 0, keepLen);
            sq.await();
            lo = keepLo;
            hi = keepHi;
        }
        // allgather: the owned range doubles each step
        for (int d = 1; d < p2; d <<= 1) {
            int partnerNew = newRank ^ d;
            int partner = fold.partner(partnerNew);
            int myLo = newRank & ~(d - 1);
            int theirLo = partnerNew & ~(d - 1);
            int myOff = BlockDistribution.offset(length, p2, myLo);
            int myLen = BlockDistribution.offset(length, p2, myLo + d) - myOff;
            int theirOff = BlockDistribution.offset(length, p2, theirLo);
            Request rq = ch.irecv(partner, tag);
            Request sq = ch.isendRange(acc, myOff, myLen, partner, tag);
            Object theirs = rq.await().value();
            System.arraycopy(theirs, 0, acc, theirOff, Array.getLength(theirs));
            sq.await();
        }
        return fold.finish(acc);
    }

    /**
     * The fold that lets a size {@code p} that is not a power of two run an algorithm among
     * {@code 2^k} participants ({@code r = p - 2^k}): of the first {@code 2r} ranks, each even one hands
     * its operand to its odd neighbour, which combines the two and takes part; the even one gets the
     * result back from it at the end ({@link #finish}).
     */
    private static final class Fold {
        private final CollectiveChannel ch;
        private final int foldTag;
        private final int extra;
        /** Whether this rank handed its operand off; then {@link #acc} is already the result. */
        final boolean handedOff;
        /** This rank's accumulator (a copy of its operand, or the fold of its pair), or the result when handed off. */
        final Object acc;
        /** This rank's rank among the participants. */
        final int newRank;

        private Fold(CollectiveChannel ch, int foldTag, int extra, boolean handedOff, Object acc, int newRank) {
            this.ch = ch;
            this.foldTag = foldTag;
            this.extra = extra;
            this.handedOff = handedOff;
            this.acc = acc;
            this.newRank = newRank;
        }

        static Fold in(CollectiveChannel ch, int seq, Object operand, ReduceOp op) {
            int me = ch.rank();
            int extra = ch.size() - Integer.highestOneBit(ch.size());
            int foldTag = Tags.of(seq, Tags.ALLREDUCE_FOLD);
            if (me < 2 * extra) {
                if (me % 2 == 0) {
                    ch.send(operand, me + 1, foldTag);
                    return new Fold(ch, foldTag, extra, true, ch.recv(me + 1, foldTag).value(), -1);
                }
                Object acc = ch.recv(me - 1, foldTag).value();
                Reductions.combine(op, acc, operand);
                return new Fold(ch, foldTag, extra, false, acc, me / 2);
            }
            return new Fold(ch, foldTag, extra, false, Reductions.copy(operand), me - extra);
        }

        /** The channel rank of the participant {@code participant}. */
        int partner(int participant) {
            return participant < extra ? 2 * participant + 1 : participant + extra;
        }

        /** Hands the result to the even neighbour this rank folded in, if any; returns it. */
        Object finish(Object result) {
            int me = ch.rank();
            if (me < 2 * extra) {
                ch.send(result, me - 1, foldTag);
            }
            return result;
        }
    }

    // ------------------------------------------------------------------------------------ scan

    static Object scanLinear(CollectiveChannel ch, int seq, Object operand, ReduceOp op) {
        int p = ch.size();
        int me = ch.rank();
        int tag = Tags.of(seq, Tags.SCAN);
        Object acc;
        if (me == 0) {
            acc = Reductions.copy(operand);
        } else {
            acc = ch.recv(me - 1, tag).value();
            Reductions.combine(op, acc, operand);
        }
        if (me + 1 < p) {
            ch.send(acc, me + 1, tag); // returns once taken: acc may go back to the caller
        }
        return acc;
    }

    /** Hillis-Steele: in step d every rank passes its reduction of ranks (me - 2d, me] to rank me + d. */
    static Object scanRecursiveDoubling(CollectiveChannel ch, int seq, Object operand, ReduceOp op) {
        int p = ch.size();
        int me = ch.rank();
        int tag = Tags.of(seq, Tags.SCAN);
        Object acc = operand; // replaced by received buffers, never modified
        for (int d = 1; d < p; d <<= 1) {
            Request sq = me + d < p ? ch.isend(acc, me + d, tag) : null;
            if (me - d >= 0) {
                Object theirs = ch.recv(me - d, tag).value();
                Reductions.combine(op, theirs, acc); // lower ranks first
                acc = theirs;
            }
            if (sq != null) {
                sq.await();
            }
        }
        return acc == operand ? Reductions.copy(operand) : acc;
    }
}
