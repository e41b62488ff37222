package org.mpfl.runtime.collective;

import java.util.ArrayList;
import java.util.List;
import org.mpfl.runtime.api.Request;

/**
 * Gather, scatter, allgather and alltoall. Values are sequences ({@link Seqs}); contributions may
 * differ in length between ranks, so where a message carries the blocks of several ranks it is
 * preceded by an {@code int[]} of their lengths (only when there is more than one block: a single
 * block's length is the message's own).
 */
final class Gathers {
    private Gathers() {
    }

    /** A block of a sequence: {@code length} elements of {@code seq} from {@code offset}. */
    private record View(Object seq, int offset, int length) {
        static View of(Object seq) {
            return new View(seq, 0, Seqs.length(seq));
        }
    }

    // ------------------------------------------------------------------------------------ gather

    static Object gatherSerial(CollectiveChannel ch, int seq, Object mine, int root) {
        int p = ch.size();
        int me = ch.rank();
        int tag = Tags.of(seq, Tags.GATHER);
        if (me != root) {
            ch.send(mine, root, tag);
            return null;
        }
        Request[] recvs = new Request[p];
        for (int i = 0; i < p; i++) {
            if (i != root) {
                recvs[i] = ch.irecv(i, tag);
            }
        }
        Object[] parts = new Object[p];
        for (int i = 0; i < p; i++) {
            parts[i] = i == root ? mine : recvs[i].await().value();
            Seqs.checkSameKind(mine, parts[i], "gather");
        }
        return Seqs.concat(parts);
    }

    static Object gatherBinomial(CollectiveChannel ch, int seq, Object mine, int root) {
        int p = ch.size();
        int me = ch.rank();
        int rel = BinomialTree.relative(me, root, p);
        int sub = BinomialTree.subtreeSize(rel, p);
        int[] children = BinomialTree.children(me, root, p);
        int dataTag = Tags.of(seq, Tags.GATHER);
        int lengthsTag = Tags.of(seq, Tags.GATHER_LENGTHS);
        if (children.length == 0 && me != root) {
            ch.send(mine, BinomialTree.parent(me, root, p), dataTag);
            return null;
        }
        // children in increasing relative rank: their subtrees follow ours contiguously
        int n = children.length;
        Request[] lengthRecvs = new Request[n];
        Request[] dataRecvs = new Request[n];
        for (int k = 0; k < n; k++) {
            int c = children[n - 1 - k];
            int crel = BinomialTree.relative(c, root, p);
            if (BinomialTree.subtreeSize(crel, p) > 1) {
                lengthRecvs[k] = ch.irecv(c, lengthsTag);
            }
            dataRecvs[k] = ch.irecv(c, dataTag);
        }
        int[] lengths = new int[sub];
        List<View> blocks = new ArrayList<>(sub);
        lengths[0] = Seqs.length(mine);
        blocks.add(View.of(mine));
        int next = 1;
        for (int k = 0; k < n; k++) {
            Object data = dataRecvs[k].await().value();
            Seqs.checkSameKind(mine, data, "gather");
            if (lengthRecvs[k] == null) {
                lengths[next] = Seqs.length(data);
                blocks.add(View.of(data));
                next++;
            } else {
                int[] childLengths = (int[]) lengthRecvs[k].await().value();
                int off = 0;
                for (int len : childLengths) {
                    lengths[next++] = len;
                    blocks.add(new View(data, off, len));
                    off += len;
                }
            }
        }
        if (me != root) {
            int parent = BinomialTree.parent(me, root, p);
            ch.send(lengths, parent, lengthsTag);
            ch.send(concat(blocks, mine), parent, dataTag);
            return null;
        }
        // blocks are in relative order; place them in absolute rank order in one copy
        View[] absolute = new View[p];
        for (int r = 0; r < p; r++) {
            absolute[BinomialTree.absolute(r, root, p)] = blocks.get(r);
        }
        return concat(List.of(absolute), mine);
    }

    private static Object concat(List<View> blocks, Object like) {
        int total = 0;
        for (View b : blocks) {
            total += b.length;
        }
        Object out = Seqs.newLike(like, total);
        int off = 0;
        for (View b : blocks) {
            Seqs.copy(b.seq, b.offset, out, off, b.length);
            off += b.length;
        }
        return out;
    }

    // ------------------------------------------------------------------------------------ scatter

    static Object scatterSerial(CollectiveChannel ch, int seq, Object array, int root) {
        int p = ch.size();
        int me = ch.rank();
        int tag = Tags.of(seq, Tags.SCATTER);
        if (me != root) {
            return ch.recv(root, tag).value();
        }
        int length = Seqs.length(array);
        List<Request> sends = new ArrayList<>(p - 1);
        for (int i = 1; i < p; i++) {
            int dest = (root + i) % p;
            sends.add(ch.isendRange(array, BlockDistribution.offset(length, p, dest),
                    BlockDistribution.count(length, p, dest), dest, tag));
        }
        Object own = Seqs.slice(array, BlockDistribution.offset(length, p, root),
                BlockDistribution.offset(length, p, root + 1));
        Requests.awaitAll(sends);
        return own;
    }

    static Object scatterBinomial(CollectiveChannel ch, int seq, Object array, int root) {
        int p = ch.size();
        int me = ch.rank();
        int rel = BinomialTree.relative(me, root, p);
        int dataTag = Tags.of(seq, Tags.SCATTER);
        int lengthTag = Tags.of(seq, Tags.SCATTER_LENGTH);
        int length;
        Object buffer; // the blocks of relative ranks [rel, rel + subtree) in relative order
        if (me == root) {
            length = Seqs.length(array);
            buffer = root == 0 ? array : rotate(array, root, p);
        } else {
            int parent = BinomialTree.parent(me, root, p);
            length = ((int[]) ch.recv(parent, lengthTag).value())[0];
            buffer = ch.recv(parent, dataTag).value();
        }
        // offsets, in the relative-order buffer of the whole array, of each relative rank's block
        int[] relOffset = new int[p + 1];
        for (int r = 0; r < p; r++) {
            relOffset[r + 1] = relOffset[r] + BlockDistribution.count(length, p, BinomialTree.absolute(r, root, p));
        }
        int base = relOffset[rel];
        int[] children = BinomialTree.children(me, root, p);
        List<Request> sends = new ArrayList<>(2 * children.length);
        int[] header = {length};
        for (int c : children) {
            int crel = BinomialTree.relative(c, root, p);
            int from = relOffset[crel];
            int to = relOffset[crel + BinomialTree.subtreeSize(crel, p)];
            sends.add(ch.isend(header, c, lengthTag));
            sends.add(ch.isendRange(buffer, from - base, to - from, c, dataTag));
        }
        int ownLength = relOffset[rel + 1] - base;
        Object own = (children.length == 0 && me != root) ? buffer : Seqs.slice(buffer, 0, ownLength);
        Requests.awaitAll(sends);
        return own;
    }

    /** The array with the block of absolute rank {@code (r + root) % p} at relative position r. */
    private static Object rotate(Object array, int root, int p) {
        int length = Seqs.length(array);
        int split = BlockDistribution.offset(length, p, root);
        Object out = Seqs.newLike(array, length);
        Seqs.copy(array, split, out, 0, length - split);
        Seqs.copy(array, 0, out, length - split, split);
        return out;
    }

    // ------------------------------------------------------------------------------------ allgather

    static Object allgatherRing(CollectiveChannel ch, int seq, Object mine) {
        int p = ch.size();
        int me = ch.rank();
        int right = (me + 1) % p;
        int left = (me - 1 + p) % p;
        int tag = Tags.of(seq, Tags.ALLGATHER);
        Object[] parts = new Object[p];
        parts[me] = mine;
        for (int s = 0; s < p - 1; s++) {
            int sendIdx = (me - s + p) % p;
            int recvIdx = (me - s - 1 + 2 * p) % p;
            Request rq = ch.irecv(left, tag);
            Request sq = ch.isend(parts[sendIdx], right, tag);
            parts[recvIdx] = rq.await().value();
            Seqs.checkSameKind(mine, parts[recvIdx], "allgather");
            sq.await();
        }
        return Seqs.concat(parts);
    }

    /**
     * Recursive doubling: log2 steps of pairwise exchange of everything gathered so far. For a size
     * that is not a power of two, the first {@code 2r} ranks ({@code r = p - 2^k}) pair up: the even
     * one hands its block to the odd one and receives the full result from it at the end.
     */
    static Object allgatherRecursiveDoubling(CollectiveChannel ch, int seq, Object mine) {
        int p = ch.size();
        int me = ch.rank();
        int p2 = Integer.highestOneBit(p);
        int extra = p - p2;
        int foldTag = Tags.of(seq, Tags.ALLGATHER_FOLD);
        View[] parts = new View[p];
        parts[me] = View.of(mine);
        int newRank;
        if (me < 2 * extra) {
            if (me % 2 == 0) {
                ch.send(mine, me + 1, foldTag);
                return ch.recv(me + 1, foldTag).value();
            }
            Object partner = ch.recv(me - 1, foldTag).value();
            Seqs.checkSameKind(mine, partner, "allgather");
            parts[me - 1] = View.of(partner);
            newRank = me / 2;
        } else {
            newRank = me - extra;
        }
        int dataTag = Tags.of(seq, Tags.ALLGATHER);
        int lengthsTag = Tags.of(seq, Tags.ALLGATHER_LENGTHS);
        for (int d = 1; d < p2; d <<= 1) {
            int partnerNew = newRank ^ d;
            int partner = partnerNew < extra ? 2 * partnerNew + 1 : partnerNew + extra;
            List<Integer> myRanks = originalRanks(newRank & ~(d - 1), d, extra);
            List<Integer> theirRanks = originalRanks(partnerNew & ~(d - 1), d, extra);
            int[] lengths = new int[myRanks.size()];
            List<View> blocks = new ArrayList<>(myRanks.size());
            for (int i = 0; i < lengths.length; i++) {
                View v = parts[myRanks.get(i)];
                lengths[i] = v.length;
                blocks.add(v);
            }
            Request rl = ch.irecv(partner, lengthsTag);
            Request rd = ch.irecv(partner, dataTag);
            Request sl = ch.isend(lengths, partner, lengthsTag);
            Request sd = ch.isendHandedOver(concat(blocks, mine), partner, dataTag); // fresh, sent once
            int[] theirLengths = (int[]) rl.await().value();
            Object data = rd.await().value();
            Seqs.checkSameKind(mine, data, "allgather");
            int off = 0;
            for (int i = 0; i < theirLengths.length; i++) {
                parts[theirRanks.get(i)] = new View(data, off, theirLengths[i]);
                off += theirLengths[i];
            }
            sl.await();
            sd.await();
        }
        Object result = concat(List.of(parts), mine);
        if (me < 2 * extra) {
            ch.send(result, me - 1, foldTag);
        }
        return result;
    }

    /** Original ranks of the participants {@code [firstNew, firstNew + count)} of the folded numbering, in rank order. */
    private static List<Integer> originalRanks(int firstNew, int count, int extra) {
        List<Integer> out = new ArrayList<>(2 * count);
        for (int q = firstNew; q < firstNew + count; q++) {
            if (q < extra) {
                out.add(2 * q);
                out.add(2 * q + 1);
            } else {
                out.add(q + extra);
            }
        }
        return out;
    }

    // ------------------------------------------------------------------------------------ alltoall

    static Object alltoallPairwise(CollectiveChannel ch, int seq, Object array) {
        int p = ch.size();
        int me = ch.rank();
        int tag = Tags.of(seq, Tags.ALLTOALL);
        int length = Seqs.length(array);
        Object[] parts = new Object[p];
        parts[me] = Seqs.slice(array, BlockDistribution.offset(length, p, me), BlockDistribution.offset(length, p, me + 1));
        for (int s = 1; s < p; s++) {
            int dest = (me + s) % p;
            int src = (me - s + p) % p;
            Request rq = ch.irecv(src, tag);
            Request sq = ch.isendRange(array, BlockDistribution.offset(length, p, dest),
                    BlockDistribution.count(length, p, dest), dest, tag);
            parts[src] = rq.await().value();
            Seqs.checkSameKind(array, parts[src], "alltoall");
            sq.await();
        }
        return Seqs.concat(parts);
    }

    static Object alltoallBasic(CollectiveChannel ch, int seq, Object array) {
        int p = ch.size();
        int me = ch.rank();
        int tag = Tags.of(seq, Tags.ALLTOALL);
        int length = Seqs.length(array);
        Request[] recvs = new Request[p];
        List<Request> sends = new ArrayList<>(p - 1);
        for (int s = 1; s < p; s++) {
            int src = (me - s + p) % p;
            recvs[src] = ch.irecv(src, tag);
        }
        for (int s = 1; s < p; s++) {
            int dest = (me + s) % p;
            sends.add(ch.isendRange(array, BlockDistribution.offset(length, p, dest),
                    BlockDistribution.count(length, p, dest), dest, tag));
        }
        Object[] parts = new Object[p];
        for (int i = 0; i < p; i++) {
            parts[i] = i == me
                    ? Seqs.slice(array, BlockDistribution.offset(length, p, me), BlockDistribution.offset(length, p, me + 1))
                    : recvs[i].await().value();
            Seqs.checkSameKind(array, parts[i], "alltoall");
        }
        Requests.awaitAll(sends);
        return Seqs.concat(parts);
    }
}
