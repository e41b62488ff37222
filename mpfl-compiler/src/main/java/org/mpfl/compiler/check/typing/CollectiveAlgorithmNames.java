package org.mpfl.compiler.check.typing;

import java.util.Set;

/**
 * Every collective algorithm name the runtime offers, so that a misspelt {@code algorithm="…"} gets
 * a warning at compile time. The compiler cannot depend on the runtime, so service-runtime's
 * {@code AlgorithmNamesAgreeTest} keeps this list equal to the runtime's own.
 */
public final class CollectiveAlgorithmNames {
    /** All names, {@code auto} included. */
    public static final Set<String> KNOWN = Set.of("auto", "serial", "binomial", "recursive-doubling", "ring",
            "reduce-broadcast", "pairwise", "basic", "linear", "bandwidth-optimal", "dissemination",
            "scatter-allgather", "reduce-scatter-allgather", "hierarchical", "bstore", "gather-broadcast");

    private CollectiveAlgorithmNames() {
    }
}
