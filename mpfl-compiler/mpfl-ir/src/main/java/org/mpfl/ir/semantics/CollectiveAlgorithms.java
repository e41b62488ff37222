package org.mpfl.ir.semantics;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The one table of collective algorithms: for each collective operation of the language, the
 * algorithm names its {@code algorithm="…"} accepts. The compiler rejects a name its operation lacks
 * and the runtime picks its implementation by the same names, so a document that passes
 * {@code mpflc check} never fails at run time for its algorithm names.
 *
 * <p>Besides {@link #AUTO} (the runtime chooses) and an operation's own {@link #algorithms()}, some
 * operations accept {@link #aliases()}: a generic name ({@code bandwidth-optimal}) or the tree name of
 * an operation whose tree variant has a longer one ({@code binomial} allreduce is reduce + broadcast).
 */
public enum CollectiveAlgorithms {
    BARRIER("barrier", "barrier", List.of("dissemination", "serial", "binomial", "hierarchical"), Map.of()),
    BROADCAST("broadcast", "bcast", List.of("serial", "binomial", "bstore", "scatter-allgather", "hierarchical"),
            Map.of("bandwidth-optimal", "scatter-allgather")),
    SCATTER("scatter", "scatter", List.of("serial", "binomial"), Map.of()),
    GATHER("gather", "gather", List.of("serial", "binomial"), Map.of()),
    ALLGATHER("allgather", "allgather", List.of("ring", "recursive-doubling", "gather-broadcast"),
            Map.of("binomial", "gather-broadcast")),
    ALLTOALL("alltoall", "alltoall", List.of("pairwise", "basic"), Map.of()),
    REDUCE("reduce", "reduce", List.of("serial", "binomial", "hierarchical"), Map.of()),
    ALLREDUCE("allreduce", "allreduce", List.of("reduce-broadcast", "recursive-doubling", "reduce-scatter-allgather",
            "hierarchical"), Map.of("bandwidth-optimal", "reduce-scatter-allgather", "binomial", "reduce-broadcast")),
    SCAN("scan", "scan", List.of("linear", "recursive-doubling"), Map.of());

    /** The runtime chooses by message and communicator size; accepted by every operation. */
    public static final String AUTO = "auto";

    private final String element;
    private final String operation;
    private final List<String> algorithms;
    private final Map<String, String> aliases;

    CollectiveAlgorithms(String element, String operation, List<String> algorithms, Map<String, String> aliases) {
        this.element = element;
        this.operation = operation;
        this.algorithms = algorithms;
        this.aliases = aliases;
    }

    /** The element name in a document ({@code broadcast}). */
    public String element() {
        return element;
    }

    /**
     * The runtime's MPI-style name of the operation ({@code bcast}), as in its system properties
     * ({@code mpfl.collective.bcast.algorithm}) and benchmark results.
     */
    public String operation() {
        return operation;
    }

    /** The algorithms of this operation, {@link #AUTO} and aliases not included, in the runtime's order. */
    public List<String> algorithms() {
        return algorithms;
    }

    /** Other accepted names and the algorithm each stands for. */
    public Map<String, String> aliases() {
        return aliases;
    }

    /** Every name {@code algorithm="…"} accepts here: {@link #AUTO}, the algorithms, then the aliases (sorted). */
    public List<String> accepted() {
        List<String> names = new ArrayList<>();
        names.add(AUTO);
        names.addAll(algorithms);
        List<String> aliasNames = new ArrayList<>(aliases.keySet());
        Collections.sort(aliasNames);
        names.addAll(aliasNames);
        return List.copyOf(names);
    }

    /** Whether {@code name} is accepted for this operation (exactly as written: names are lower case). */
    public boolean accepts(String name) {
        return name.equals(AUTO) || algorithms.contains(name) || aliases.containsKey(name);
    }

    /**
     * The algorithm {@code name} stands for: empty for {@link #AUTO} (or a blank or absent name), an
     * alias resolved; case and surrounding blanks do not matter.
     *
     * @throws IllegalArgumentException for a name the operation lacks, naming the accepted ones
     */
    public Optional<String> resolve(String name) {
        String n = name == null ? AUTO : name.trim().toLowerCase(Locale.ROOT);
        if (n.isEmpty() || n.equals(AUTO)) {
            return Optional.empty();
        }
        if (!accepts(n)) {
            throw new IllegalArgumentException("unknown " + element + " algorithm '" + n + "' (known: "
                    + String.join(", ", accepted()) + ")");
        }
        return Optional.of(aliases.getOrDefault(n, n));
    }

    /** The operations that accept {@code name}, in table order (to tell a writer where a name belongs). */
    public static List<CollectiveAlgorithms> offering(String name) {
        List<CollectiveAlgorithms> out = new ArrayList<>();
        for (CollectiveAlgorithms op : values()) {
            if (op.accepts(name)) {
                out.add(op);
            }
        }
        return out;
    }

    /** The operation of a document element ({@code broadcast}), if it is a collective that takes {@code algorithm}. */
    public static Optional<CollectiveAlgorithms> ofElement(String element) {
        for (CollectiveAlgorithms op : values()) {
            if (op.element.equals(element)) {
                return Optional.of(op);
            }
        }
        return Optional.empty();
    }

    /** The operation by its runtime name ({@code bcast}) or element name ({@code broadcast}). */
    public static Optional<CollectiveAlgorithms> ofOperation(String name) {
        for (CollectiveAlgorithms op : values()) {
            if (op.operation.equals(name) || op.element.equals(name)) {
                return Optional.of(op);
            }
        }
        return Optional.empty();
    }
}
