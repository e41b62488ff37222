package org.mpfl.runtime.transport;

/** A transport could not deliver; {@link #isFinal()} tells whether a retry can help. */
public class TransportException extends Exception {
    private static final long serialVersionUID = 1L;
    private final boolean isFinal;

    public TransportException(String message, boolean isFinal, Throwable cause) {
        super(message, cause);
        this.isFinal = isFinal;
    }

    /** True when retrying cannot help (the receiver rejected the message). */
    public boolean isFinal() {
        return isFinal;
    }
}
