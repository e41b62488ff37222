package org.mpfl.runtime.interp;

import org.mpfl.ir.diag.SourceLocation;
import org.mpfl.protocol.FaultKind;
import org.mpfl.runtime.monitor.LocatedFailure;

/**
 * A fault of an interpreted rank (spec section 7): a run-time error, a receive timeout, an
 * unreachable peer, an activity's exception or a user {@code <fail>}. It fails the rank, which makes
 * the host abort the domain; the host reports the activity, the source location, the message and whose fault
 * it is ({@link FaultKind#WORKFLOW} unless made as an {@linkplain #infrastructure infrastructure fault}).
 */
public final class RankFault extends RuntimeException implements LocatedFailure {
    private static final long serialVersionUID = 1L;
    private final String activity;
    private final transient SourceLocation location;
    private final FaultKind fault;

    public RankFault(String activity, SourceLocation location, String message, Throwable cause) {
        this(FaultKind.WORKFLOW, activity, location, message, cause);
    }

    private RankFault(FaultKind fault, String activity, SourceLocation location, String message, Throwable cause) {
        super(message, cause);
        this.fault = fault;
        this.activity = activity;
        this.location = location;
    }

    /** A fault that is not the workflow's (a peer unreachable, a kernel worker lost): the run may restart after it. */
    public static RankFault infrastructure(String activity, SourceLocation location, String message, Throwable cause) {
        return new RankFault(FaultKind.INFRASTRUCTURE, activity, location, message, cause);
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

    @Override
    public FaultKind fault() {
        return fault;
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
