package org.mpfl.runtime.api;

/** The communication domain was aborted (by the engine, by another rank's fault, or by a cancel). */
public class DomainAbortedException extends MpiwsException {
    private static final long serialVersionUID = 1L;

    public DomainAbortedException(String message) {
        super(message);
    }
}
