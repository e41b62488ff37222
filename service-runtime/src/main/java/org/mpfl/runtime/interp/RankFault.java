package org.mpfl.runtime.interp;

import org.mpfl.ir.diag.SourceLocation;
import org.mpfl.runtime.monitor.LocatedFailure;

/**
 * A fault of an interpreted rank (spec section 7): a run-time error, a receive timeout, an
 * unreachable peer, an activity's exception or a user {@code <fail>}. It fails the rank, which makes
 * the host abort the domain; the host reports the activity, the source location and the message.
 */
public final class RankFault extends RuntimeException implements LocatedFailure {
    private static final long serialVersionUID = 1L;
    private final String activity;
    private final transient SourceLocation location;

    public RankFault(String activity, SourceLocation location, String message, Throwable cause) {
        super(message, cause);
        this.activity = activity;
        this.location = location;
    }

    public RankFault(String activity, SourceLocation location, String message) {
        this(activity, location, message, null);
    }

    @Override
    public String activity() {
        return activity;
    }

    @Override
    public String location() {
        return location == null ? null : location.toString();
    }

    /** The location as the compiler's type. */
    public SourceLocation sourceLocation() {
        return location;
    }

    @Override
    public String toString() {
        return (location == null ? "" : location + ": ") + (activity == null ? "" : activity + ": ") + getMessage();
    }
}
