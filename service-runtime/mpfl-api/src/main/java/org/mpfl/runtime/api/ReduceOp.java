package org.mpfl.runtime.api;

/** Reduction operators; applied element-wise to arrays, for int, long and double (and boolean for LAND/LOR). */
public enum ReduceOp {
    SUM, PROD, MIN, MAX, LAND, LOR, BAND, BOR;

    /** Parses the MPFL spelling ({@code sum}, {@code land}, ...). */
    public static ReduceOp of(String name) {
        return valueOf(name.toUpperCase(java.util.Locale.ROOT));
    }
}
