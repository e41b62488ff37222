package org.mpfl.runtime.collective;

import java.util.ArrayList;
import java.util.List;
import org.mpfl.runtime.api.Communicator;
import org.mpfl.runtime.api.Message;
import org.mpfl.runtime.api.Request;

/**
 * Broadcast algorithms. Non-roots may not know the size (or even the type) of what is coming, so
 * the tree algorithms let the root decide: every non-root receives its first message from its
 * binomial parent with a wildcard tag, and the tag says whether it is the whole value (binomial
 * tree) or the header of a scatter + ring-allgather broadcast of a long primitive array.
 */
final class Broadcasts {
    private static final int INT = 1;
    private static final int LONG = 2;
    private static final int DOUBLE = 3;
    private static final int BYTE = 4;

    private Broadcasts() {
    }

    static Object serial(CollectiveChannel ch, int seq, Object value, int root) {
        int p = ch.size();
        int me = ch.rank();
        int tag = Tags.of(seq, Tags.BCAST_VALUE);
        if (me != root) {
            return ch.recv(root, tag).value();
        }
        List<Request> sends = new ArrayList<>(p - 1);
        for (int i = 1; i < p; i++) {
            sends.add(ch.isend(value, (root + i) % p, tag));
        }
        Requests.awaitAll(sends);
        return value;
    }

    static Object bstore(CollectiveChannel ch, int seq, Object value, int root) {
        if (ch.supportsBstore()) {
            return ch.bstoreBroadcast(value, root, Tags.of(seq, Tags.BCAST_VALUE));
        }
        // no native forwarding on arrival: the same tree, forwarded by the rank's thread
        return tree(ch, seq, value, root, false);
    }

    /** Whether the root would use scatter + allgather for this value under {@code config}. */
    static boolean isLong(Object value, int size, CollectiveConfig config) {
        return Seqs.isPrimitiveArray(value) && size >= config.bcastLongMinRanks()
                && Seqs.byteSize(value) >= config.bcastLongBytes() && Seqs.length(value) >= size;
    }

    /**
     * The binomial tree, or (when {@code scatterAllgather} is set at the root and the value is a
     * primitive array with at least one element per rank) scatter + ring allgather.
     */
    static Object tree(CollectiveChannel ch, int seq, Object value, int root, boolean scatterAllgather) {
        return tree(ch, seq, value, root, scatterAllgather, null);
    }

    /**
     * As {@link #tree(CollectiveChannel, int, Object, int, boolean)}; when {@code pending} is given,
     * the sends of the binomial tree are added to it instead of being awaited, so that a caller can
     * start further sends (the next phase of a hierarchical broadcast) before these complete.
     */
    static Object tree(CollectiveChannel ch, int seq, Object value, int root, boolean scatterAllgather,
                       List<Request> pending) {
        int p = ch.size();
        int me = ch.rank();
        int valueTag = Tags.of(seq, Tags.BCAST_VALUE);
        int headerTag = Tags.of(seq, Tags.BCAST_HEADER);
        int[] children = BinomialTree.children(me, root, p);
        if (me == root) {
            if (scatterAllgather && Seqs.isPrimitiveArray(value) && Seqs.length(value) >= p) {
                return scatterAllgatherRoot(ch, seq, value, root, children);
            }
            sendAll(ch, value, children, valueTag, pending);
            return value;
        }
        int parent = BinomialTree.parent(me, root, p);
        Message first = ch.recv(parent, Communicator.ANY_TAG);
        if (first.tag() == valueTag) {
            sendAll(ch, first.value(), children, valueTag, pending);
            return first.value();
        } else if (first.tag() == headerTag) {
            return scatterAllgatherNonRoot(ch, seq, (long[]) first.value(), root, parent, children);
        }
        throw new IllegalStateException("broadcast: unexpected message with tag " + first.tag()
                + " from rank " + parent + " (ranks called different collectives?)");
    }

    private static void sendAll(CollectiveChannel ch, Object value, int[] to, int tag, List<Request> pending) {
        if (to.length == 0) {
            return;
        }
        List<Request> sends = pending != null ? pending : new ArrayList<>(to.length);
        // a small value goes out as a private copy that nobody waits for: the caller gets the
        // original back at once instead of one delivery acknowledgement later
        Object detached = detachable(value);
        for (int c : to) {
            if (detached != null) {
                ch.isend(detached, c, tag);
            } else {
                sends.add(ch.isend(value, c, tag));
            }
        }
        if (pending == null) {
            Requests.awaitAll(sends);
        }
    }

    /** Values up to this size are sent as detached copies (see {@link #detachable}): copying is cheaper than waiting for the delivery acknowledgement. */
    static final int DETACH_LIMIT_BYTES = 1 << 20;

    /**
     * A version of {@code value} that may be sent without waiting for the send: immutable scalars
     * and strings as they are, small primitive arrays as a copy; {@code null} for anything else.
     */
    static Object detachable(Object value) {
        if (value instanceof Integer || value instanceof Long || value instanceof Double || value instanceof Boolean
                || value instanceof String) {
            return value;
        }
        if (Seqs.isPrimitiveArray(value) && Seqs.byteSize(value) <= DETACH_LIMIT_BYTES) {
            return Seqs.slice(value, 0, Seqs.length(value));
        }
        return null;
    }

    private static int typeCode(Object array) {
        if (array instanceof int[]) {
            return INT;
        } else if (array instanceof long[]) {
            return LONG;
        } else if (array instanceof double[]) {
            return DOUBLE;
        }
        return BYTE;
    }

    private static Object newArray(int code, int length) {
        return switch (code) {
            case INT -> new int[length];
            case LONG -> new long[length];
            case DOUBLE -> new double[length];
            case BYTE -> new byte[length];
            default -> throw new IllegalStateException("broadcast: bad element type code " + code);
        };
    }

    private static Object scatterAllgatherRoot(CollectiveChannel ch, int seq, Object value, int root, int[] children) {
        int length = Seqs.length(value);
        long[] header = {typeCode(value), length};
        sendToSubtrees(ch, seq, header, value, root, children);
        // the root already holds every chunk: it only relays in the ring and never writes the caller's array
        ring(ch, seq, value, root, false);
        return value;
    }

    private static Object scatterAllgatherNonRoot(CollectiveChannel ch, int seq, long[] header, int root,
                                                  int parent, int[] children) {
        int p = ch.size();
        int me = ch.rank();
        int length = (int) header[1];
        Object result = newArray((int) header[0], length);
        int rel = BinomialTree.relative(me, root, p);
        int from = BlockDistribution.offset(length, p, rel);
        Object chunk = ch.recv(parent, Tags.of(seq, Tags.BCAST_CHUNK)).value();
        System.arraycopy(chunk, 0, result, from, Seqs.length(chunk));
        sendToSubtrees(ch, seq, header, result, root, children);
        ring(ch, seq, result, root, true);
        return result;
    }

    /**
     * The scatter half of scatter-allgather: sends each child the header and the chunks of its whole
     * subtree (contiguous in relative ranks) out of {@code data}, and waits for the sends.
     */
    private static void sendToSubtrees(CollectiveChannel ch, int seq, long[] header, Object data, int root, int[] children) {
        int p = ch.size();
        int length = (int) header[1];
        List<Request> sends = new ArrayList<>(2 * children.length);
        for (int c : children) {
            sends.add(ch.isend(header, c, Tags.of(seq, Tags.BCAST_HEADER)));
            int rel = BinomialTree.relative(c, root, p);
            int from = BlockDistribution.offset(length, p, rel);
            int to = BlockDistribution.offset(length, p, rel + BinomialTree.subtreeSize(rel, p));
            sends.add(ch.isendRange(data, from, to - from, c, Tags.of(seq, Tags.BCAST_CHUNK)));
        }
        Requests.awaitAll(sends);
    }

    /**
     * Ring allgather of the p chunks (chunk i belongs to relative rank i): in step s every rank
     * passes the chunk it got in step s-1 (its own in step 0) to its right neighbour.
     */
    private static void ring(CollectiveChannel ch, int seq, Object result, int root, boolean store) {
        int p = ch.size();
        int length = Seqs.length(result);
        int rel = BinomialTree.relative(ch.rank(), root, p);
        int right = BinomialTree.absolute((rel + 1) % p, root, p);
        int left = BinomialTree.absolute((rel - 1 + p) % p, root, p);
        int tag = Tags.of(seq, Tags.BCAST_RING);
        for (int s = 0; s < p - 1; s++) {
            int sendIdx = (rel - s + p) % p;
            int recvIdx = (rel - s - 1 + 2 * p) % p;
            Request rq = ch.irecv(left, tag);
            int sOff = BlockDistribution.offset(length, p, sendIdx);
            Request sq = ch.isendRange(result, sOff, BlockDistribution.count(length, p, sendIdx), right, tag);
            Object chunk = rq.await().value();
            if (store) {
                System.arraycopy(chunk, 0, result, BlockDistribution.offset(length, p, recvIdx), Seqs.length(chunk));
            }
            sq.await();
        }
    }
}
