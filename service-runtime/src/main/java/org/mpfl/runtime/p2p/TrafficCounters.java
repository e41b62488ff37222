package org.mpfl.runtime.p2p;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLongArray;
import org.mpfl.protocol.Endpoint;

/** Messages and payload bytes one rank sent to each destination world rank (the engine's rank×rank matrix). */
public final class TrafficCounters {
    private final AtomicLongArray messages;
    private final AtomicLongArray bytes;

    TrafficCounters(int worldSize) {
        messages = new AtomicLongArray(worldSize);
        bytes = new AtomicLongArray(worldSize);
    }

    void count(int dest, long payloadBytes) {
        messages.incrementAndGet(dest);
        bytes.addAndGet(dest, payloadBytes);
    }

    public long messagesTo(int dest) {
        return messages.get(dest);
    }

    public long bytesTo(int dest) {
        return bytes.get(dest);
    }

    /**
     * Messages sent to the ranks of each site so far, by the destinations' sites (the endpoints' sites,
     * by world rank): with this rank's own site, the (site → site) counts of the inter-site traffic.
     */
    public Map<String, Long> messagesBySite(List<Endpoint> endpoints) {
        Map<String, Long> out = new TreeMap<>();
        for (int i = 0; i < messages.length() && i < endpoints.size(); i++) {
            long n = messages.get(i);
            if (n > 0) {
                out.merge(endpoints.get(i).site(), n, Long::sum);
            }
        }
        return out;
    }

    /** Payload bytes sent to all destinations so far (a sum over the world: for sampled trace spans, not per message). */
    public long bytesSent() {
        long sum = 0;
        for (int i = 0; i < bytes.length(); i++) {
            sum += bytes.get(i);
        }
        return sum;
    }

    /** {@code {"sentTo":{rank:count},"bytesTo":{rank:bytes}}} with non-zero entries only, as RankEvent COUNTERS carries. */
    public Map<String, Object> asEventValue() {
        Map<String, Long> sent = new LinkedHashMap<>();
        Map<String, Long> sentBytes = new LinkedHashMap<>();
        for (int i = 0; i < messages.length(); i++) {
            long n = messages.get(i);
            if (n > 0) {
                sent.put(Integer.toString(i), n);
                sentBytes.put(Integer.toString(i), bytes.get(i));
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("sentTo", sent);
        out.put("bytesTo", sentBytes);
        return out;
    }
}
