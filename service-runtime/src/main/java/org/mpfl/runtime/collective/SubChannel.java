package org.mpfl.runtime.collective;

import java.time.Duration;
import org.mpfl.runtime.api.Message;
import org.mpfl.runtime.api.Request;

/**
 * A subset of a channel's ranks seen as a channel of its own (ranks renumbered by position in
 * {@code members}), for the phases of the hierarchical algorithms. It shares the parent's context
 * and tags: the phases of one collective use disjoint pairs of ranks, so their messages cannot be
 * confused.
 */
final class SubChannel implements CollectiveChannel {
    private final CollectiveChannel parent;
    private final int[] members;
    private final int rank;

    SubChannel(CollectiveChannel parent, int[] members) {
        this.parent = parent;
        this.members = members;
        int r = -1;
        for (int i = 0; i < members.length; i++) {
            if (members[i] == parent.rank()) {
                r = i;
            }
        }
        if (r < 0) {
            throw new IllegalArgumentException("rank " + parent.rank() + " is not in the sub-channel");
        }
        this.rank = r;
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return members.length;
    }

    @Override
    public void send(Object value, int dest, int tag) {
        parent.send(value, members[dest], tag);
    }

    @Override
    public Request isend(Object value, int dest, int tag) {
        return parent.isend(value, members[dest], tag);
    }

    @Override
    public Request isendHandedOver(Object value, int dest, int tag) {
        return parent.isendHandedOver(value, members[dest], tag);
    }

    @Override
    public Request isendRange(Object array, int offset, int length, int dest, int tag) {
        return parent.isendRange(array, offset, length, members[dest], tag);
    }

    @Override
    public Message recv(int source, int tag) {
        Message m = parent.recv(members[source], tag);
        return new Message(source, m.tag(), m.value());
    }

    @Override
    public Request irecv(int source, int tag) {
        Request r = parent.irecv(members[source], tag);
        return new Request() {
            @Override
            public Message await() {
                Message m = r.await();
                return new Message(source, m.tag(), m.value());
            }

            @Override
            public Message await(Duration timeout) {
                Message m = r.await(timeout);
                return new Message(source, m.tag(), m.value());
            }

            @Override
            public boolean test() {
                return r.test();
            }
        };
    }
}
