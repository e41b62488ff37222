package org.mpfl.compiler.comm;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.mpfl.compiler.check.WorkflowPicture;
import org.mpfl.ir.diag.Diagnostic;
import org.mpfl.ir.diag.Diagnostics;
import org.mpfl.ir.diag.SourceLocation;
import org.mpfl.ir.IrProcess;
import org.mpfl.ir.IrWorkflow;
import org.mpfl.ir.eval.ProcessLayout;

/**
 * The picture of a checked workflow: its processes, the messages between them and the collectives
 * over their communicators, as Graphviz DOT ({@link #toDot()}). It is not guessed from the send and
 * receive expressions: the communication check runs every rank symbolically with the given parameter
 * values (the same run that finds deadlocks), and every send it matches with a receive and every
 * collective it completes is counted — per sending and receiving process and send site, per
 * collective site and communicator. Communication that depends on run-time data the check could not
 * decide is missing; the check's notes (e.g. that it stopped at a limit) are kept in {@link #notes()}
 * and in the picture's caption.
 *
 * @param workflow     the workflow's name
 * @param processes    its processes, in document order
 * @param messages     point-to-point traffic, one entry per (from, to, communicator, send site)
 * @param collectives  collectives, one entry per (operation, communicator, site)
 * @param notes        what makes the picture partial, or empty
 */
public record WorkflowGraph(String workflow, List<Process> processes, List<Messages> messages,
                            List<Collective> collectives, List<String> notes) {

    /** The {@link WorkflowPicture} of the compiler, found through ServiceLoader. */
    public static final class Provider implements WorkflowPicture {
        @Override
        public Drawing draw(IrWorkflow workflow, Map<String, Object> paramValues) {
            WorkflowGraph g = of(workflow, paramValues);
            long pairs = g.messages().stream().map(m -> m.from() + "\u0000" + m.to()).distinct().count();
            return new Drawing(g.toDot(), g.notes(), g.processes().size(), (int) pairs, g.collectives().size());
        }
    }

    /** A process: its name, service and rank count ({@code -1} when the count is not known before the run). */
    public record Process(String name, String service, int ranks) {
    }

    /**
     * {@code count} messages sent by ranks of {@code from} with {@code operation} (send, sendrecv, isend)
     * at {@code site} and received by ranks of {@code to}.
     */
    public record Messages(String from, String to, String comm, String operation, String site, long count) {
    }

    /** {@code count} instances of a collective {@code operation} over {@code comm} at {@code site}, among ranks of {@code processes}. */
    public record Collective(String operation, String comm, List<String> processes, String site, long count) {
    }

    /** The graph of a checked workflow with these parameter values (as {@code mpflc check} takes them). */
    public static WorkflowGraph of(IrWorkflow workflow, Map<String, Object> paramValues) {
        ProcessLayout layout;
        try {
            layout = ProcessLayout.of(workflow, paramValues);
        } catch (RuntimeException e) {
            layout = null;
        }
        List<Process> processes = new ArrayList<>();
        for (IrProcess p : workflow.processes()) {
            processes.add(new Process(p.name(), p.service(), layout == null ? -1 : layout.count(p.name())));
        }
        Map<String, long[]> messageCounts = new LinkedHashMap<>();
        Map<String, Messages> messageKeys = new LinkedHashMap<>();
        Map<String, long[]> collectiveCounts = new LinkedHashMap<>();
        Map<String, Collective> collectiveKeys = new LinkedHashMap<>();
        CommunicationObserver observer = new CommunicationObserver() {
            @Override
            public void message(Request send, Request receive) {
                String operation = send.origin == null ? "send"
                        : send.origin.getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT);
                Messages m = new Messages(send.owner.process().name(), receive.owner.process().name(), send.comm.name(),
                        operation, site(send.at), 0);
                String key = m.from() + "\u0000" + m.to() + "\u0000" + m.comm() + "\u0000" + m.site();
                messageKeys.putIfAbsent(key, m);
                messageCounts.computeIfAbsent(key, k -> new long[1])[0]++;
            }

            @Override
            public void collective(CollectiveRendezvous.Slot slot) {
                TreeSet<String> members = new TreeSet<>();
                for (CollectiveRendezvous.Arrival a : slot.arrivals) {
                    members.add(a.rank().process().name());
                }
                CollectiveRendezvous.Arrival first = slot.arrivals[0];
                String operation = first.activity().getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT);
                List<String> ordered = new ArrayList<>();
                workflow.processes().forEach(p -> {
                    if (members.contains(p.name())) {
                        ordered.add(p.name());
                    }
                });
                Collective c = new Collective(operation, slot.comm.name(), List.copyOf(ordered), site(first.activity().at()), 0);
                String key = operation + "\u0000" + c.comm() + "\u0000" + c.site() + "\u0000" + ordered;
                collectiveKeys.putIfAbsent(key, c);
                collectiveCounts.computeIfAbsent(key, k -> new long[1])[0]++;
            }
        };
        Diagnostics diagnostics = new Diagnostics();
        new CommunicationCheck().run(workflow, paramValues, diagnostics, observer);
        List<String> notes = new ArrayList<>();
        for (Diagnostic d : diagnostics.sorted()) {
            if (d.message().startsWith("the communication")) {
                // short enough for a caption: where, and what, without the explanation in brackets
                String m = d.message();
                int paren = m.indexOf(" (");
                notes.add(site(d.location()) + ": " + (paren > 0 ? m.substring(0, paren) : m));
            }
        }
        if (layout == null) {
            notes.add("the rank counts are not known before the run (give the parameters with --param): no messages shown");
        }
        List<Messages> messages = new ArrayList<>();
        messageKeys.forEach((k, m) -> messages.add(new Messages(m.from(), m.to(), m.comm(), m.operation(), m.site(), messageCounts.get(k)[0])));
        List<Collective> collectives = new ArrayList<>();
        collectiveKeys.forEach((k, c) -> collectives.add(new Collective(c.operation(), c.comm(), c.processes(), c.site(),
                collectiveCounts.get(k)[0])));
        return new WorkflowGraph(workflow.name(), List.copyOf(processes), List.copyOf(messages), List.copyOf(collectives),
                List.copyOf(notes));
    }

    /** {@code file:line:col} with the file's name only (pictures are shared; the directory is the author's). */
    private static String site(SourceLocation at) {
        if (at == null) {
            return "";
        }
        String file = at.file() == null ? "" : at.file();
        file = file.substring(Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\')) + 1);
        return file + ":" + at.line() + ":" + at.column();
    }

    /**
     * The picture as Graphviz DOT: a box per process ({@code name}, rank count, service), a solid arrow
     * per pair of processes that exchange messages (a label line per send site: operation, count,
     * communicator, location), an ellipse per collective joined to the processes
     * taking part by dashed lines (label: operation, communicator, count, site).
     */
    public String toDot() {
        StringBuilder d = new StringBuilder();
        d.append("digraph ").append(quote(workflow)).append(" {\n");
        d.append("  graph [rankdir=LR, fontname=\"Helvetica\", fontsize=11, labelloc=t, label=")
                .append(quote(workflow + (notes.isEmpty() ? "" : "\npartial: " + String.join("\n", notes)))).append("];\n");
        d.append("  node [fontname=\"Helvetica\", fontsize=11];\n");
        d.append("  edge [fontname=\"Helvetica\", fontsize=9];\n");
        for (Process p : processes) {
            String ranks = p.ranks() < 0 ? "? ranks" : p.ranks() == 1 ? "1 rank" : p.ranks() + " ranks";
            d.append("  ").append(quote("p:" + p.name())).append(" [shape=box, style=\"rounded,filled\", fillcolor=\"#dbe8fb\", label=")
                    .append(quote(p.name() + "\n" + ranks + (p.service() == null ? "" : "\nservice " + p.service()))).append("];\n");
        }
        // one arrow per pair of processes, a label line per send site: several arrows between the same
        // two boxes (or loops on one) would pile their labels on top of each other
        Map<String, List<Messages>> byPair = new LinkedHashMap<>();
        for (Messages m : messages) {
            byPair.computeIfAbsent(m.from() + "\u0000" + m.to(), k -> new ArrayList<>()).add(m);
        }
        for (List<Messages> flows : byPair.values()) {
            StringBuilder label = new StringBuilder();
            for (Messages m : flows) {
                label.append(label.length() == 0 ? "" : "\n").append(m.operation()).append(" ×").append(m.count())
                        .append(m.comm().equals("world") ? "" : " (" + m.comm() + ")").append(" at ").append(m.site());
            }
            d.append("  ").append(quote("p:" + flows.get(0).from())).append(" -> ").append(quote("p:" + flows.get(0).to()))
                    .append(" [color=\"#c05621\", label=").append(quote(label.toString())).append("];\n");
        }
        int i = 0;
        for (Collective c : collectives) {
            String id = "c:" + i++;
            d.append("  ").append(quote(id)).append(" [shape=ellipse, style=filled, fillcolor=\"#e6f4ea\", label=")
                    .append(quote(c.operation() + " ×" + c.count() + "\ncomm " + c.comm() + "\n" + c.site())).append("];\n");
            for (String p : c.processes()) {
                d.append("  ").append(quote("p:" + p)).append(" -> ").append(quote(id)).append(" [dir=none, style=dashed, color=\"#2f855a\"];\n");
            }
        }
        d.append("}\n");
        return d.toString();
    }

    /** A DOT string literal: quotes and backslashes escaped, line breaks as {@code \n}. */
    static String quote(String s) {
        StringBuilder q = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> q.append("\\\"");
                case '\\' -> q.append("\\\\");
                case '\n' -> q.append("\\n");
                case '\r' -> { }
                default -> q.append(c);
            }
        }
        return q.append('"').toString();
    }
}
