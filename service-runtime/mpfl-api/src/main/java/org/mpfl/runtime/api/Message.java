package org.mpfl.runtime.api;

/**
 * A received message.
 *
 * @param source the sender's rank in the communicator it was received on
 * @param tag    the tag it was sent with
 * @param value  the payload (a fresh copy owned by the receiver)
 */
public record Message(int source, int tag, Object value) {
}
