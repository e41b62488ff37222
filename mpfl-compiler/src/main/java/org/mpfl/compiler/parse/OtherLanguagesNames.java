package org.mpfl.compiler.parse;

import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.mpfl.ir.spelling.Suggestions;

/**
 * "did you mean" for element and attribute names as MPI, Python or other workflow languages spell them
 * ({@code <recv>}, {@code <bcast>}, {@code dest=}, {@code start=}), which are too far from the MPFL name
 * for a spelling distance, or nearer another one ({@code recv} is two edits from {@code irecv}); the
 * element and attribute counterpart of the types' table in {@code WorkflowChecker}.
 */
final class OtherLanguagesNames {
    private static final Map<String, List<String>> ELEMENTS = Map.of(
            "parameter", List.of("param"),
            "variable", List.of("var"),
            "recv", List.of("receive"),
            "bcast", List.of("broadcast"),
            "print", List.of("log"));

    // an attribute may mean different ones on different elements: the first the element takes is meant
    private static final Map<String, List<String>> ATTRIBUTES = Map.ofEntries(
            Map.entry("value", List.of("init", "default")),
            Map.entry("default", List.of("init")),
            Map.entry("np", List.of("ranks")),
            Map.entry("size", List.of("ranks")),
            Map.entry("dest", List.of("to")),
            Map.entry("src", List.of("from")),
            Map.entry("buf", List.of("data")),
            Map.entry("data", List.of("var")),
            Map.entry("start", List.of("from")),
            Map.entry("end", List.of("to")),
            Map.entry("by", List.of("step")),
            Map.entry("condition", List.of("test")),
            Map.entry("inputs", List.of("in")),
            Map.entry("outputs", List.of("out")),
            Map.entry("msg", List.of("message")),
            Map.entry("text", List.of("message")),
            Map.entry("function", List.of("python")),
            Map.entry("cmd", List.of("command")));

    private OtherLanguagesNames() {
    }

    /** The hint for an unknown element: the MPFL element another language's name means, else the nearest spelling. */
    static String element(String written, Collection<String> elements) {
        return hint(ELEMENTS, written, elements);
    }

    /** The hint for an unknown attribute of an element that takes {@code allowed}. */
    static String attribute(String written, Collection<String> allowed) {
        return hint(ATTRIBUTES, written, allowed);
    }

    private static String hint(Map<String, List<String>> table, String written, Collection<String> names) {
        for (String meant : table.getOrDefault(written.toLowerCase(Locale.ROOT), List.of())) {
            if (names.contains(meant)) {
                return " (did you mean '" + meant + "'?)";
            }
        }
        return Suggestions.didYouMean(written, names);
    }
}
