package org.mpfl.runtime.p2p;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLongArray;
import org.mpfl.protocol.Endpoint;

/**
 * Messages and payload bytes one rank sent to each destination world rank (the engine's rank×rank matrix),
 * and what the engine's deadlock detector compares across two ranks to see a message in transit: the
 * point-to-point messages (standard and synchronous, collectives' included) this rank queued for each
 * peer and those that arrived here from each peer, and the receipts of synchronous sends it sent and
 * received per peer. A message queued by its sender that has not arrived, or a receipt sent that has
 * not arrived, is on its way; ranks blocked meanwhile are not deadlocked.
 */
public final class TrafficCounters {
    private final AtomicLongArray messages;
    private final AtomicLongArray bytes;
    private final AtomicLongArray dataSent;
    private final AtomicLongArray dataArrived;
    private final AtomicLongArray receiptsSent;
    private final AtomicLongArray receiptsReceived;

    TrafficCounters(int worldSize) {
        messages = new AtomicLongArray(worldSize);
        bytes = new AtomicLongArray(worldSize);
        dataSent = new AtomicLongArray(worldSize);
        dataArrived = new AtomicLongArray(worldSize);
        receiptsSent = new AtomicLongArray(worldSize);
        receiptsReceived = new AtomicLongArray(worldSize);
    }

    /** This rank queued a point-to-point message (standard or synchronous) for {@code dest}. */
    void dataSent(int dest) {
        dataSent.incrementAndGet(dest);
    }

    /** A point-to-point message from {@code sender} arrived here (stored once; duplicates are not counted). */
    void dataArrived(int sender) {
        dataArrived.incrementAndGet(sender);
    }

    void count(int dest, long payloadBytes) {
        messages.incrementAndGet(dest);
        bytes.addAndGet(dest, payloadBytes);
    }

    /** This rank matched a synchronous message from {@code sender} and sends it the receipt. */
    void receiptSent(int sender) {
        receiptsSent.incrementAndGet(sender);
    }

    /** A receipt for one of this rank's synchronous messages arrived from {@code receiver}. */
    void receiptReceived(int receiver) {
        receiptsReceived.incrementAndGet(receiver);
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

    /**
     * {@code {"sentTo":{rank:count},"bytesTo":{rank:bytes},"dataSentTo":{rank:count},"dataFrom":{rank:count},
     * "receiptsSentTo":{rank:count},"receiptsFrom":{rank:count}}} with non-zero entries only, as RankEvent COUNTERS
     * and a {@code status} answer carry.
     */
    public Map<String, Object> asEventValue() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("sentTo", nonZero(messages));
        out.put("bytesTo", nonZero(bytes)); // a peer sent only empty messages has no entry: 0 bytes, as absent
        out.put("dataSentTo", nonZero(dataSent));
        out.put("dataFrom", nonZero(dataArrived));
        out.put("receiptsSentTo", nonZero(receiptsSent));
        out.put("receiptsFrom", nonZero(receiptsReceived));
        return out;
    }

    private static Map<String, Long> nonZero(AtomicLongArray counts) {
        Map<String, Long> out = new LinkedHashMap<>();
        for (int i = 0; i < counts.length(); i++) {
            long n = counts.get(i);
            if (n > 0) {
                out.put(Integer.toString(i), n);
            }
        }
        return out;
    }
}
