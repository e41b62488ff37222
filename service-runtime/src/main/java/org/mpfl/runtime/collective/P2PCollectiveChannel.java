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
    private final int[] hosts;

    public P2PCollectiveChannel(P2PCommunicator privateContext) {
        this.comm = privateContext;
        this.hosts = hostsOf(privateContext);
    }

    /** Host numbers by communicator rank, from the host ids of the domain's endpoints. */
    private static int[] hostsOf(P2PCommunicator comm) {
        java.util.List<org.mpfl.protocol.Endpoint> endpoints = comm.rankInstance().endpoints();
        java.util.Map<String, Integer> numbers = new java.util.HashMap<>();
        int[] out = new int[comm.size()];
        for (int r = 0; r < out.length; r++) {
            String id = endpoints.get(comm.worldRankOf(r)).hostId();
            if (id == null) {
                return null;
            }
            out[r] = numbers.computeIfAbsent(id, k -> numbers.size());
        }
        return out;
    }

    @Override
    public int[] hosts() {
        return hosts;
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
    public Request isendHandedOver(Object value, int dest, int tag) {
        return comm.isendHandedOver(value, dest, tag);
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
