package org.mpfl.runtime.transport.local;

import org.mpfl.runtime.transport.Envelope;
import org.mpfl.runtime.transport.Inbox;

/**
 * The receiving side the {@link LocalTransport} hands envelopes to: an {@link Inbox} that can also
 * take a payload still shared with the sender and copy it only once the message is admitted. In a
 * service host it is the rank registry of the point-to-point layer (which sits above the transports
 * and implements this interface), so the local transport does not depend on it.
 */
public interface LocalInbox extends Inbox {

    /**
     * Like {@link #store(Envelope)}; with {@code copyOnAdmit} the payload is shared with the sender
     * (in-JVM hand-over) and is deep-copied only once the message is admitted, so a BUSY answer
     * costs no copy.
     */
    Outcome store(Envelope envelope, boolean copyOnAdmit);
}
