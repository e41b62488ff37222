package org.mpfl.runtime.p2p;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.mpfl.runtime.transport.Payload;

/**
 * The binomial broadcast tree of bstore and the BSTORE payload format.
 *
 * <p>A BSTORE envelope's payload is {@code bytes}: a little-endian header — value type code, root's
 * communicator rank, communicator size {@code n}, the {@code n} members' world ranks, and the root's
 * {@code n} per-destination sequence numbers — followed by the value's wire form. A receiving rank
 * delivers the value as a message from the root with its own entry of the sequence numbers (so the
 * root's per-destination order holds) and forwards the same bytes to its children. Carrying it
 * inside the payload keeps BSTORE transparent to every transport.
 */
final class BroadcastTree {
    private BroadcastTree() {
    }

    /** What a BSTORE payload says. */
    record Header(Payload.Type type, int root, int[] members, long[] seqs, int valueOffset) {
        int indexOf(int worldRank) {
            for (int i = 0; i < members.length; i++) {
                if (members[i] == worldRank) {
                    return i;
                }
            }
            throw new IllegalArgumentException("world rank " + worldRank + " is not in this broadcast");
        }
    }

    static byte[] encode(Payload value, int root, int[] members, long[] seqs) {
        int n = members.length;
        // arrays and scalars are written straight into the message (one copy); others encode once
        byte[] body = fixedSize(value.type()) ? null : value.encode();
        int bodyLength = body == null ? value.encodedLength() : body.length;
        ByteBuffer buf = ByteBuffer.allocate(12 + 12 * n + bodyLength).order(ByteOrder.LITTLE_ENDIAN);
        buf.putInt(value.type().code).putInt(root).putInt(n);
        for (int m : members) {
            buf.putInt(m);
        }
        for (long s : seqs) {
            buf.putLong(s);
        }
        if (body == null) {
            value.encodeInto(buf);
        } else {
            buf.put(body);
        }
        return buf.array();
    }

    private static boolean fixedSize(Payload.Type type) {
        return switch (type) {
            case INT_ARRAY, LONG_ARRAY, DOUBLE_ARRAY, INT, LONG, DOUBLE, BOOLEAN, NULL -> true;
            default -> false;
        };
    }

    static Header header(byte[] bytes) {
        ByteBuffer buf = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        Payload.Type type = Payload.Type.ofCode(buf.getInt());
        int root = buf.getInt();
        int n = buf.getInt();
        if (n <= 0 || n > (bytes.length - 12) / 12) {
            throw new IllegalArgumentException("malformed bstore header (size " + n + ")");
        }
        int[] members = new int[n];
        for (int i = 0; i < n; i++) {
            members[i] = buf.getInt();
        }
        long[] seqs = new long[n];
        for (int i = 0; i < n; i++) {
            seqs[i] = buf.getLong();
        }
        return new Header(type, root, members, seqs, buf.position());
    }

    static Payload value(Header h, byte[] bytes) {
        // decoded straight out of the received bytes (which are forwarded as they are): one copy
        return Payload.decode(h.type(), bytes, h.valueOffset(), bytes.length - h.valueOffset());
    }

    /**
     * Children of communicator rank {@code me} in the binomial tree rooted at {@code root} over
     * {@code n} ranks, farthest first (the root sends to n/2 away first, as the paper's Fig. 7).
     */
    static int[] children(int me, int root, int n) {
        int vr = (me - root + n) % n;
        int top = vr == 0 ? Integer.highestOneBit(Math.max(n - 1, 1)) : Integer.lowestOneBit(vr) >> 1;
        int[] out = new int[32];
        int count = 0;
        for (int m = top; m >= 1; m >>= 1) {
            if (vr + m < n) {
                out[count++] = (vr + m + root) % n;
            }
        }
        return Arrays.copyOf(out, count);
    }
}
