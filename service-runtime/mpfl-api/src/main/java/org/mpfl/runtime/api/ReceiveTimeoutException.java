package org.mpfl.runtime.api;

/** A receive (or a request's await) found no matching message within its time limit. */
public class ReceiveTimeoutException extends MpiwsException {
    private static final long serialVersionUID = 1L;

    public ReceiveTimeoutException(String message) {
        super(message);
    }
}
