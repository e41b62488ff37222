package org.mpfl.ir.eval;

import org.mpfl.ir.diag.SourceLocation;

/**
 * A run-time error of the program (spec section 7): integer division by zero, index out of range,
 * bad conversion... It carries the source location of the expression or activity that failed, so
 * the run can end FAILED with the rank, location and cause.
 */
public class RuntimeFault extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient SourceLocation location;

    public RuntimeFault(SourceLocation location, String message) {
        super(message);
        this.location = location;
    }

    /** Where the fault happened (may be null for faults raised outside any expression). */
    public SourceLocation location() {
        return location;
    }

    @Override
    public String toString() {
        return (location == null ? "" : location + ": ") + getMessage();
    }
}
