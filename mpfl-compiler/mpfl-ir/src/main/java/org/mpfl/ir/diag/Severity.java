package org.mpfl.ir.diag;

/** How bad a {@link Diagnostic} is: errors stop compilation, warnings do not. */
public enum Severity {
    ERROR, WARNING;

    /** The word used in GCC-style output. */
    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
