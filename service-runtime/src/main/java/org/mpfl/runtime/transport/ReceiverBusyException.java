package org.mpfl.runtime.transport;

/**
 * The receiving host answered {@link Inbox.Outcome#BUSY}: its buffer for unexpected messages of the
 * domain is full (or the rank is not created yet). Not a failure: the sender backs off and retries
 * without counting the wait against its delivery deadline (only an abort of the domain ends it).
 */
public class ReceiverBusyException extends TransportException {
    private static final long serialVersionUID = 1L;

    public ReceiverBusyException(String message) {
        super(message, false, null);
    }
}
