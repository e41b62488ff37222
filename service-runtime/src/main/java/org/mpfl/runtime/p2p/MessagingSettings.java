package org.mpfl.runtime.p2p;

import org.mpfl.runtime.settings.RuntimeSettings;
import java.time.Duration;

/**
 * Tunables of the point-to-point layer of one service host.
 *
 * @param unexpectedLimitBytes per domain, the most payload bytes held for messages not yet matched
 *                             by a receive (including out-of-order arrivals); above it the inbox
 *                             answers BUSY and senders back off, unless the message matches a
 *                             posted receive
 * @param eagerLimitBytes      a standard send of at most this many bytes copies the value and
 *                             returns when it cannot be stored at once; a larger one is not copied
 *                             and the send waits until the transport took it (F-MPJ's eager /
 *                             rendezvous split, 128 KB there)
 * @param outboundLimitBytes   per destination, the most bytes of copied small messages queued at
 *                             the sender; a send beyond it waits (so a sender cannot exhaust its
 *                             own heap either)
 * @param deliveryDeadline     how long a sender retries a store that fails (peer unreachable,
 *                             I/O error) before the rank fails with a DeliveryException; BUSY
 *                             answers do not count against it
 */
public record MessagingSettings(long unexpectedLimitBytes, long eagerLimitBytes, long outboundLimitBytes,
                                Duration deliveryDeadline) {

    /**
     * Defaults, overridable by system properties {@code mpfl.unexpectedLimitBytes} (default: a
     * quarter of the max heap, at most 256 MB), {@code mpfl.eagerLimitBytes} (128 KB),
     * {@code mpfl.outboundLimitBytes} (64 MB), {@code mpfl.deliveryDeadlineMs} (30 000).
     */
    public static MessagingSettings fromSystemProperties() {
        long heapQuarter = Runtime.getRuntime().maxMemory() / 4;
        return new MessagingSettings(
                RuntimeSettings.UNEXPECTED_LIMIT_BYTES.get(Math.min(256L << 20, heapQuarter)),
                RuntimeSettings.EAGER_LIMIT_BYTES.get(),
                RuntimeSettings.OUTBOUND_LIMIT_BYTES.get(),
                Duration.ofMillis(RuntimeSettings.DELIVERY_DEADLINE_MS.get()));
    }

    public MessagingSettings withUnexpectedLimitBytes(long limit) {
        return new MessagingSettings(limit, eagerLimitBytes, outboundLimitBytes, deliveryDeadline);
    }

    public MessagingSettings withDeliveryDeadline(Duration deadline) {
        return new MessagingSettings(unexpectedLimitBytes, eagerLimitBytes, outboundLimitBytes, deadline);
    }
}
