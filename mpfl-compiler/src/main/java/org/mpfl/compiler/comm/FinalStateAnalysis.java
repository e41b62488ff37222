package org.mpfl.compiler.comm;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.mpfl.ir.diag.Diagnostic;
import org.mpfl.ir.diag.SourceLocation;

/**
 * Explains the state in which no rank can move any more: collectives some members never reach,
 * deadlock cycles, waits nothing can serve, and messages nobody receives. Ranks whose fate depends
 * on a rank whose analysis stopped are left out (see {@link WaitForGraph}); each stuck rank is
 * explained once.
 */
final class FinalStateAnalysis {
    /** Links of a cycle shown in full; longer cycles are abbreviated in the middle. */
    private static final int MAX_LINKS_SHOWN = 8;

    private final List<SymbolicRank> ranks;
    private final CommunicationReporter reporter;
    private final Set<Integer> explained = new HashSet<>();
    /** Added to every finding when receives from any rank were matched: the check followed one order of arrival. */
    private Diagnostic.Note orderNote;

    FinalStateAnalysis(List<SymbolicRank> ranks, CommunicationReporter reporter) {
        this.ranks = ranks;
        this.reporter = reporter;
    }

    void analyse(CollectiveRendezvous rendezvous, MessageMatcher matcher) {
        Request wildcard = matcher.firstWildcardMatch();
        if (wildcard != null) {
            orderNote = new Diagnostic.Note(wildcard.at, "this receive from any rank matched one of several possible senders;"
                    + " with another order the outcome may differ");
        }
        WaitForGraph graph = new WaitForGraph(ranks);
        for (CollectiveRendezvous.Slot slot : rendezvous.incomplete()) {
            incompleteCollective(slot, graph);
        }
        for (int r : graph.stuckRanks()) {
            if (explained.contains(r)) {
                continue;
            }
            WaitForGraph.Chain chain = graph.chainFrom(r);
            if (chain.cycle()) {
                if (chain.edges().stream().noneMatch(e -> explained.contains(e.from()))) {
                    cycle(chain);
                }
            } else {
                if (!explained.contains(chain.end())) {
                    nothingCanServe(chain.end(), graph);
                }
                // a wait several ranks could serve (any source, waitall) is its own problem, not just a consequence
                Blocker own = graph.blockerOf(r);
                if (r != chain.end() && own != null && own.waitsFor().size() > 1) {
                    nothingCanServe(r, graph);
                }
            }
            chain.edges().forEach(e -> explained.add(e.from()));
            explained.add(r);
        }
        unreceivedMessages(matcher, graph);
    }

    private void incompleteCollective(CollectiveRendezvous.Slot slot, WaitForGraph graph) {
        List<CollectiveRendezvous.Arrival> present = slot.present();
        if (present.stream().noneMatch(a -> graph.isStuck(a.rank().worldRank()))) {
            return;
        }
        present.forEach(a -> explained.add(a.rank().worldRank()));
        CommunicationReporter.ArrivalGroups groups = CommunicationReporter.group(present);
        SourceLocation primary = groups.primary();
        List<String> parts = new ArrayList<>(groups.parts());
        List<Diagnostic.Note> notes = new ArrayList<>(groups.notes());
        Map<String, TreeSet<Integer>> finished = new LinkedHashMap<>();
        Map<SourceLocation, TreeSet<Integer>> blockedAt = new LinkedHashMap<>();
        Map<SourceLocation, String> blockedHow = new LinkedHashMap<>();
        for (int m : slot.missing()) {
            SymbolicRank missing = ranks.get(m);
            if (missing.status == SymbolicRank.Status.DONE) {
                String last = missing.lastCollective == null ? "" : " (its last collective was " + missing.lastCollective + ")";
                finished.computeIfAbsent(last, k -> new TreeSet<>()).add(m);
            } else {
                Blocker b = graph.blockerOf(m);
                if (b != null) {
                    blockedAt.computeIfAbsent(b.at(), k -> new TreeSet<>()).add(m);
                    blockedHow.putIfAbsent(b.at(), b.describe());
                }
            }
        }
        blockedAt.forEach((at, who) -> {
            String how = (who.size() == 1 ? "" : "rank " + who.first() + ": ") + blockedHow.get(at);
            String text = CommunicationReporter.ranks(who) + (who.size() == 1 ? " is" : " are") + " blocked";
            parts.add(text + " at " + at + " (" + how + ")");
            if (!at.equals(primary)) {
                notes.add(new Diagnostic.Note(at, text + " here (" + how + ")"));
            }
        });
        finished.forEach((last, who) -> parts.add(CommunicationReporter.ranks(who)
                + (who.size() == 1 ? " finishes" : " finish") + " without reaching it"
                + (who.size() == 1 ? last : last.replace("its last", "their last"))));
        error(primary, "collective mismatch on comm " + slot.comm.name() + ": " + String.join(", ", parts), notes);
    }

    private void cycle(WaitForGraph.Chain chain) {
        List<WaitForGraph.Edge> edges = chain.edges();
        // start at the lowest rank of the cycle, so the report does not depend on where the search began
        int start = 0;
        for (int i = 1; i < edges.size(); i++) {
            if (edges.get(i).from() < edges.get(start).from()) {
                start = i;
            }
        }
        List<WaitForGraph.Edge> ordered = new ArrayList<>(edges.subList(start, edges.size()));
        ordered.addAll(edges.subList(0, start));
        List<String> links = new ArrayList<>();
        for (int i = 0; i < ordered.size(); i++) {
            if (ordered.size() > MAX_LINKS_SHOWN && i == MAX_LINKS_SHOWN - 2) {
                links.add("… (" + (ordered.size() - MAX_LINKS_SHOWN + 1) + " more ranks)");
                i = ordered.size() - 2;
                continue;
            }
            WaitForGraph.Edge e = ordered.get(i);
            int candidates = e.blocker().waitsFor().size();
            links.add("rank " + e.from() + " waits for rank " + e.to() + (candidates > 1 ? " (or any of " + candidates + " ranks)" : "")
                    + " at " + e.blocker().at());
        }
        SourceLocation primary = ordered.get(0).blocker().at();
        Map<SourceLocation, TreeSet<Integer>> elsewhere = new LinkedHashMap<>();
        Map<SourceLocation, String> what = new LinkedHashMap<>();
        for (WaitForGraph.Edge e : ordered) {
            if (!e.blocker().at().equals(primary)) {
                elsewhere.computeIfAbsent(e.blocker().at(), k -> new TreeSet<>()).add(e.from());
                what.putIfAbsent(e.blocker().at(), e.blocker().describe());
            }
        }
        List<Diagnostic.Note> notes = new ArrayList<>();
        elsewhere.forEach((at, who) -> notes.add(new Diagnostic.Note(at, CommunicationReporter.ranks(who)
                + (who.size() == 1 ? " is" : " are") + " blocked here: " + what.get(at))));
        error(primary, "deadlock: " + String.join(" → ", links) + " → rank " + ordered.get(0).from() + cycleFix(ordered), notes);
    }

    /**
     * How to break a cycle of blocking receives or synchronous sends, the two a newcomer writes (a ring whose
     * ranks all receive first, crossed synchronous sends): the cycle alone says what happens, not what to write
     * instead. Cycles through waits, collectives or joins get no hint: their fix depends on the program.
     */
    private static String cycleFix(List<WaitForGraph.Edge> cycle) {
        Set<String> kinds = new HashSet<>();
        for (WaitForGraph.Edge e : cycle) {
            kinds.add(e.blocker() instanceof Blockers.RequestWait w ? w.activity() : "other");
        }
        if (kinds.equals(Set.of("<receive>"))) {
            return " (each rank of this cycle receives before it sends: let one of them send first, a standard <send> never"
                    + " blocks, or exchange with <sendrecv>)";
        }
        if (kinds.contains("synchronous <send>") && Set.of("<receive>", "synchronous <send>").containsAll(kinds)) {
            return " (a synchronous <send> waits until its message is received: send in standard mode, which never blocks,"
                    + " or exchange with <sendrecv>)";
        }
        return "";
    }

    /** A stuck rank that waits only for finished ranks (or itself). */
    private void nothingCanServe(int rank, WaitForGraph graph) {
        explained.add(rank);
        Blocker b = graph.blockerOf(rank);
        if (b == null) {
            return;
        }
        TreeSet<Integer> finished = new TreeSet<>();
        TreeSet<Integer> blocked = new TreeSet<>();
        for (int w : b.waitsFor()) {
            if (w != rank && ranks.get(w).status == SymbolicRank.Status.DONE) {
                finished.add(w);
            } else if (w != rank && graph.isStuck(w)) {
                blocked.add(w);
            }
        }
        List<String> reasons = new ArrayList<>();
        if (!finished.isEmpty()) {
            reasons.add(CommunicationReporter.ranks(finished) + (finished.size() == 1 ? " has" : " have") + " finished");
        }
        if (!blocked.isEmpty()) {
            reasons.add(CommunicationReporter.ranks(blocked) + (blocked.size() == 1 ? " is" : " are") + " blocked");
        }
        String who = reasons.isEmpty() ? "no other rank can" : String.join(" and ", reasons) + ", so nobody will";
        if (b instanceof Blockers.RequestWait w && w.requests().stream().anyMatch(r -> !r.complete && r.kind == Request.Kind.RECEIVE)) {
            error(b.at(), "unmatched receive: rank " + rank + " waits forever — " + b.describe() + ", and "
                    + who + " send it", List.of());
        } else if (b instanceof Blockers.RequestWait) {
            error(b.at(), "unmatched synchronous send: rank " + rank + " waits forever — " + b.describe() + ", and "
                    + who + " receive it", List.of());
        } else {
            error(b.at(), "rank " + rank + " waits forever — " + b.describe(), List.of());
        }
    }

    private void unreceivedMessages(MessageMatcher matcher, WaitForGraph graph) {
        Map<SourceLocation, List<Request>> byPlace = new LinkedHashMap<>();
        for (Request m : matcher.unreceivedMessages()) {
            int destination = m.comm.world(m.peer);
            SymbolicRank receiver = ranks.get(destination);
            boolean receiverSettled = receiver.status == SymbolicRank.Status.DONE || graph.isStuck(destination);
            if (receiverSettled && !(m.synchronous && graph.isStuck(m.owner.worldRank()))) {
                byPlace.computeIfAbsent(m.at, k -> new ArrayList<>()).add(m);
            }
        }
        byPlace.forEach((at, messages) -> {
            Map<String, Integer> counted = new LinkedHashMap<>();
            for (Request m : messages) {
                counted.merge("rank " + m.owner.worldRank() + " → " + m.describePeer() + " (" + m.describeTag() + ", comm "
                        + m.comm.name() + ")", 1, Integer::sum);
            }
            List<String> shown = new ArrayList<>();
            counted.forEach((pair, n) -> shown.add(n == 1 ? pair : n + " × " + pair));
            String list = String.join("; ", shown.subList(0, Math.min(4, shown.size()))) + (shown.size() > 4 ? "; …" : "");
            // what to change: the facts alone leave a newcomer guessing whether the send or the receive is wrong
            error(at, messages.size() == 1
                    ? "unmatched send: the message sent here from " + list + " is never received (its destination needs a"
                            + " matching <receive>: same source, tag and comm; or remove this send)"
                    : "unmatched send: " + messages.size() + " messages sent here are never received: " + list
                            + " (each destination needs a matching <receive> per message: same source, tag and comm; or send"
                            + " fewer)", List.of());
        });
        Map<SourceLocation, TreeSet<Integer>> posted = new LinkedHashMap<>();
        for (Request r : matcher.unmatchedReceives()) {
            if (r.owner.status == SymbolicRank.Status.DONE) {
                posted.computeIfAbsent(r.at, k -> new TreeSet<>()).add(r.owner.worldRank());
            }
        }
        posted.forEach((at, who) -> error(at, "unmatched receive: the receive posted here by "
                + CommunicationReporter.ranks(who) + " is never matched by a message", List.of()));
    }

    private void error(SourceLocation at, String message, List<Diagnostic.Note> notes) {
        List<Diagnostic.Note> all = new ArrayList<>(notes);
        if (orderNote != null) {
            all.add(orderNote);
        }
        reporter.error(at, message, all);
    }
}
