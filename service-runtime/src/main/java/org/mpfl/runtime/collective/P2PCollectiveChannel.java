package org.mpfl.runtime.collective;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.mpfl.protocol.Endpoint;
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
    private final int[] sites;

    public P2PCollectiveChannel(P2PCommunicator privateContext) {
        this.comm = privateContext;
        this.hosts = numbered(privateContext, Endpoint::hostId);
        this.sites = numbered(privateContext, Endpoint::site);
    }

    /**
     * Numbers by communicator rank of one property of the domain's endpoints (host id, site), numbered
     * in order of first appearance in rank order; {@code null} when some endpoint lacks it.
     */
    private static int[] numbered(P2PCommunicator comm, Function<Endpoint, String> property) {
        List<Endpoint> endpoints = comm.rankInstance().endpoints();
        Map<String, Integer> numbers = new HashMap<>();
        int[] out = new int[comm.size()];
        for (int r = 0; r < out.length; r++) {
            String id = property.apply(endpoints.get(comm.worldRankOf(r)));
            if (id == null) {
                return null;
            }
            out[r] = numbers.computeIfAbsent(id, k -> numbers.size());
        }
        return out;
    }

    @Override
    public int[] sites() {
        return sites;
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
