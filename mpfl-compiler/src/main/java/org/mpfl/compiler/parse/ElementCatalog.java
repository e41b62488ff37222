package org.mpfl.compiler.parse;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The structure of MPFL 1.0 (the same as {@code mpfl-1.0.xsd}, kept in code so that messages can be
 * precise): for every element its required and optional attributes and what it may contain.
 */
public final class ElementCatalog {
    /** The MPFL 1.0 namespace. */
    public static final String NAMESPACE = "urn:mpfl:1.0";

    /** What an element may contain. */
    public enum Content {
        /** Nothing but whitespace. */
        EMPTY,
        /** Character data (description). */
        TEXT,
        /** The named child elements only (workflow, parallel). */
        CHILDREN,
        /** A sequence of activities (process, loop bodies, branches...), possibly after some specific children. */
        ACTIVITIES
    }

    /** Structure of one element. */
    public record Rule(String name, List<String> required, List<String> optional, Content content, Set<String> children) {
        public boolean allows(String attribute) {
            return required.contains(attribute) || optional.contains(attribute);
        }

        public List<String> allAttributes() {
            return java.util.stream.Stream.concat(required.stream(), optional.stream()).toList();
        }
    }

    private static final Map<String, Rule> RULES = new LinkedHashMap<>();
    private static final List<String> COLLECTIVE_OPTIONS = List.of("comm", "algorithm");

    static {
        rule("workflow", List.of("name"), List.of("version", "restarts"), Content.CHILDREN,
                Set.of("description", "library", "param", "process"));
        rule("description", List.of(), List.of(), Content.TEXT, Set.of());
        rule("library", List.of("path"), List.of(), Content.EMPTY, Set.of());
        rule("param", List.of("name", "type"), List.of("default"), Content.EMPTY, Set.of());
        rule("process", List.of("name"), List.of("ranks", "service"), Content.ACTIVITIES, Set.of("var"));
        rule("var", List.of("name", "type"), List.of("init"), Content.EMPTY, Set.of());
        // control flow
        rule("assign", List.of("to", "value"), List.of(), Content.EMPTY, Set.of());
        rule("if", List.of("test"), List.of(), Content.ACTIVITIES, Set.of("elseif", "else"));
        rule("elseif", List.of("test"), List.of(), Content.ACTIVITIES, Set.of());
        rule("else", List.of(), List.of(), Content.ACTIVITIES, Set.of());
        rule("while", List.of("test"), List.of(), Content.ACTIVITIES, Set.of());
        rule("for", List.of("var", "from", "to"), List.of("step"), Content.ACTIVITIES, Set.of());
        rule("break", List.of(), List.of(), Content.EMPTY, Set.of());
        rule("sequence", List.of(), List.of(), Content.ACTIVITIES, Set.of());
        rule("parallel", List.of(), List.of(), Content.CHILDREN, Set.of("branch"));
        rule("branch", List.of(), List.of(), Content.ACTIVITIES, Set.of());
        // work
        rule("compute", List.of(), List.of("class", "python", "command", "in", "out"), Content.EMPTY, Set.of());
        rule("invoke", List.of("endpoint", "operation"), List.of("input", "output"), Content.EMPTY, Set.of());
        // point-to-point
        rule("send", List.of("to", "data"), List.of("tag", "comm", "mode"), Content.EMPTY, Set.of());
        rule("receive", List.of("from", "into"), List.of("tag", "comm", "source", "gottag", "timeout"), Content.EMPTY, Set.of());
        rule("sendrecv", List.of("to", "data", "from", "into"), List.of("sendtag", "recvtag", "comm"), Content.EMPTY, Set.of());
        rule("isend", List.of("to", "data", "request"), List.of("tag", "comm", "mode"), Content.EMPTY, Set.of());
        rule("irecv", List.of("from", "into", "request"), List.of("tag", "comm", "source", "gottag"), Content.EMPTY, Set.of());
        rule("wait", List.of("request"), List.of(), Content.EMPTY, Set.of());
        rule("waitall", List.of("requests"), List.of(), Content.EMPTY, Set.of());
        // collectives
        rule("barrier", List.of(), COLLECTIVE_OPTIONS, Content.EMPTY, Set.of());
        rule("broadcast", List.of("root", "var"), COLLECTIVE_OPTIONS, Content.EMPTY, Set.of());
        rule("scatter", List.of("root", "data", "into"), COLLECTIVE_OPTIONS, Content.EMPTY, Set.of());
        rule("gather", List.of("root", "data", "into"), COLLECTIVE_OPTIONS, Content.EMPTY, Set.of());
        rule("allgather", List.of("data", "into"), COLLECTIVE_OPTIONS, Content.EMPTY, Set.of());
        rule("alltoall", List.of("data", "into"), COLLECTIVE_OPTIONS, Content.EMPTY, Set.of());
        rule("reduce", List.of("root", "data", "op", "into"), COLLECTIVE_OPTIONS, Content.EMPTY, Set.of());
        rule("allreduce", List.of("data", "op", "into"), COLLECTIVE_OPTIONS, Content.EMPTY, Set.of());
        rule("scan", List.of("data", "op", "into"), COLLECTIVE_OPTIONS, Content.EMPTY, Set.of());
        // communicators
        rule("split", List.of("name", "color"), List.of("comm", "key"), Content.EMPTY, Set.of());
        rule("cartesian", List.of("name", "dims"), List.of("comm", "periodic"), Content.EMPTY, Set.of());
        // results and monitoring
        rule("output", List.of("name", "value"), List.of(), Content.EMPTY, Set.of());
        rule("log", List.of("message"), List.of("level"), Content.EMPTY, Set.of());
        rule("progress", List.of("value"), List.of("total"), Content.EMPTY, Set.of());
        rule("fail", List.of("message"), List.of(), Content.EMPTY, Set.of());
        // fault tolerance
        rule("checkpoint", List.of(), List.of("every"), Content.EMPTY, Set.of());
    }

    /** Elements that are activities (may appear in any activity sequence). */
    public static final Set<String> ACTIVITIES = Set.of("assign", "if", "while", "for", "break", "sequence", "parallel",
            "compute", "invoke", "send", "receive", "sendrecv", "isend", "irecv", "wait", "waitall", "barrier",
            "broadcast", "scatter", "gather", "allgather", "alltoall", "reduce", "allreduce", "scan", "split",
            "cartesian", "output", "log", "progress", "fail", "checkpoint");

    private ElementCatalog() {
    }

    private static void rule(String name, List<String> required, List<String> optional, Content content, Set<String> children) {
        RULES.put(name, new Rule(name, required, optional, content, children));
    }

    /** The rule of an element, or null for an unknown element. */
    public static Rule rule(String name) {
        return RULES.get(name);
    }

    public static Set<String> elementNames() {
        return RULES.keySet();
    }
}
