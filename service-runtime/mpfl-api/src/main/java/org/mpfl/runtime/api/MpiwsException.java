package org.mpfl.runtime.api;

/** Any failure of an MPIWS operation. Subclasses tell the cause apart. */
public class MpiwsException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public MpiwsException(String message) {
        super(message);
    }

    public MpiwsException(String message, Throwable cause) {
        super(message, cause);
    }
}
