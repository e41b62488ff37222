package org.mpfl.runtime.collective;

import org.mpfl.runtime.api.Message;
import org.mpfl.runtime.api.Request;
import org.mpfl.runtime.p2p.P2PCommunicator;

/**
 * The {@link CollectiveChannel} over the point-to-point runtime: a {@link P2PCommunicator} on the
 * communicator's private collective context (same members, its own context id), with native bstore.
 */
public final class P2PCollectiveChannel implements CollectiveChannel {
    private final P2PCommunicator comm;

    public P2PCollectiveChannel(P2PCommunicator privateContext) {
        this.comm = privateContext;
    }

    @Override
    public int rank() {
        return comm.rank();
    }

    @Override
    public int size() {
        return comm.size();
    }

    @Override
    public void send(Object value, int dest, int tag) {
        comm.send(value, dest, tag);
    }

    @Override
    public Request isend(Object value, int dest, int tag) {
        return comm.isend(value, dest, tag);
    }

    @Override
    public Message recv(int source, int tag) {
        return comm.recv(source, tag);
    }

    @Override
    public Request irecv(int source, int tag) {
        return comm.irecv(source, tag);
    }

    @Override
    public boolean supportsBstore() {
        return true;
    }

    @Override
    public Object bstoreBroadcast(Object value, int root, int tag) {
        return comm.bstoreBroadcast(value, root, tag);
    }
}
