package org.mpfl.runtime.api;

/** A message could not be delivered: the peer stayed unreachable past the retry deadline, or rejected it. */
public class DeliveryException extends MpiwsException {
    private static final long serialVersionUID = 1L;

    public DeliveryException(String message, Throwable cause) {
        super(message, cause);
    }
}
