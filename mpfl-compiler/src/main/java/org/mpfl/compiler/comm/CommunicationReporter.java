package org.mpfl.compiler.comm;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.mpfl.ir.diag.Diagnostic;
import org.mpfl.ir.diag.Diagnostics;
import org.mpfl.ir.diag.Severity;
import org.mpfl.ir.diag.SourceLocation;
import org.mpfl.ir.IrActivity;

/**
 * Turns the findings of the check into diagnostics: errors for deadlock cycles, unmatched sends and
 * receives, collective mismatches and messages whose type does not fit their receive (with notes at
 * the other locations involved) and for ranks outside their communicator, warnings for what was not
 * decided or would fail at run time — one diagnostic per place and cause, naming all the ranks concerned.
 */
final class CommunicationReporter {
    private final Diagnostics diagnostics;
    private final Map<SourceLocation, Map<Stop, TreeSet<Integer>>> stops = new LinkedHashMap<>();
    private final Map<Outstanding, TreeSet<Integer>> outstanding = new LinkedHashMap<>();

    CommunicationReporter(Diagnostics diagnostics) {
        this.diagnostics = diagnostics;
    }

    /** {@code rank 3}, {@code ranks 0-2}, {@code ranks 0, 2, 5-7}. */
    static String ranks(Collection<Integer> ranks) {
        List<Integer> sorted = new ArrayList<>(new TreeSet<>(ranks));
        if (sorted.size() == 1) {
            return "rank " + sorted.get(0);
        }
        StringBuilder text = new StringBuilder("ranks ");
        for (int i = 0; i < sorted.size();) {
            int j = i;
            while (j + 1 < sorted.size() && sorted.get(j + 1) == sorted.get(j) + 1) {
                j++;
            }
            if (i > 0) {
                text.append(", ");
            }
            text.append(sorted.get(i));
            if (j > i) {
                text.append(j == i + 1 ? ", " : "-").append(sorted.get(j));
            }
            i = j + 1;
        }
        return text.toString();
    }

    /** A rank's analysis stopped: remembered, reported once per place and cause by {@link #flush()}. */
    void stopped(SymbolicRank rank, RankStop stop) {
        if (stop.reason() == RankStop.Reason.ERROR) {
            return;
        }
        SourceLocation at = stop.at() == null ? rank.process().at() : stop.at();
        stops.computeIfAbsent(at, k -> new LinkedHashMap<>()).computeIfAbsent(new Stop(stop.reason(), stop.getMessage()),
                k -> new TreeSet<>()).add(rank.worldRank());
    }

    /**
     * A request still outstanding when a rank reached a checkpoint: remembered, reported once per checkpoint and
     * request by {@link #flush()}, naming all the ranks concerned (every rank of a domain usually makes the same
     * mistake at the same place; one error per rank would bury the others).
     */
    void outstandingAtCheckpoint(SourceLocation checkpoint, String request, String started, SourceLocation startedAt,
            int rank) {
        outstanding.computeIfAbsent(new Outstanding(checkpoint, request, started, startedAt), k -> new TreeSet<>()).add(rank);
    }

    /** Emits the diagnostics of {@link #stopped} and {@link #outstandingAtCheckpoint}: one per place and cause, naming all the ranks concerned. */
    void flush() {
        outstanding.forEach((o, ranks) -> error(o.checkpoint(), "request '" + o.request() + "' of " + ranks(ranks) + " (<"
                + o.started() + "> at " + o.startedAt() + ") is still outstanding at this <checkpoint>; <wait> for it before the"
                + " checkpoint", List.of()));
        outstanding.clear();
        stops.forEach((at, byCause) -> byCause.forEach((stop, ranks) -> {
            switch (stop.reason()) {
                case FAULT -> diagnostics.warning(at, "with these param values the run fails here (" + stop.message()
                        + "); not checked beyond this point on " + ranks(ranks));
                case CERTAIN_FAULT -> diagnostics.error(at, stop.message() + ": with these param values the run fails here on "
                        + ranks(ranks) + " (not checked beyond this point)");
                default -> diagnostics.warning(at, stop.message() + "; not checked beyond this point on " + ranks(ranks));
            }
        }));
        stops.clear();
    }

    /** Why ranks stopped at one place. */
    private record Stop(RankStop.Reason reason, String message) {
    }

    /** A request left outstanding at a checkpoint: which, and where it was started. */
    private record Outstanding(SourceLocation checkpoint, String request, String started, SourceLocation startedAt) {
    }

    void warning(SourceLocation at, String message) {
        diagnostics.warning(at, message);
    }

    void error(SourceLocation at, String message, List<Diagnostic.Note> notes) {
        diagnostics.report(new Diagnostic(at, Severity.ERROR, message, notes));
    }

    /** The members of a collective slot grouped by what and where they reached, with notes for the places after the first. */
    record ArrivalGroups(SourceLocation primary, List<String> parts, List<Diagnostic.Note> notes) {
    }

    /**
     * {@code ranks 0-2 reach <allreduce> at f:12:5}, one part per (collective, place); root, op and grid are
     * shown only when every group reached the same kind of collective (otherwise the kind is the difference).
     */
    static ArrivalGroups group(List<CollectiveRendezvous.Arrival> arrivals) {
        boolean sameKind = arrivals.stream().map(a -> IrActivity.elementName(a.activity())).distinct().count() == 1;
        Map<String, TreeSet<Integer>> groups = new LinkedHashMap<>();
        Map<String, SourceLocation> where = new LinkedHashMap<>();
        Map<String, String> what = new LinkedHashMap<>();
        for (CollectiveRendezvous.Arrival a : arrivals) {
            String collective = sameKind ? a.signature() : "<" + IrActivity.elementName(a.activity()) + ">";
            String key = collective + " at " + a.activity().at();
            groups.computeIfAbsent(key, k -> new TreeSet<>()).add(a.rank().worldRank());
            where.putIfAbsent(key, a.activity().at());
            what.putIfAbsent(key, collective);
        }
        List<String> parts = new ArrayList<>();
        List<Diagnostic.Note> notes = new ArrayList<>();
        SourceLocation primary = null;
        for (Map.Entry<String, TreeSet<Integer>> g : groups.entrySet()) {
            String reach = ranks(g.getValue()) + (g.getValue().size() == 1 ? " reaches " : " reach ");
            parts.add(reach + g.getKey());
            SourceLocation at = where.get(g.getKey());
            if (primary == null) {
                primary = at;
            } else if (!at.equals(primary)) {
                notes.add(new Diagnostic.Note(at, reach + what.get(g.getKey()) + " here"));
            }
        }
        return new ArrivalGroups(primary, parts, notes);
    }

    /** All members reached the k-th collective of a communicator, but not the same one: reported, and the members stop. */
    void collectiveMismatch(CollectiveRendezvous.Slot slot) {
        for (CollectiveRendezvous.Arrival a : slot.arrivals) {
            a.rank().status = SymbolicRank.Status.STOPPED;
            a.rank().stop = new RankStop(RankStop.Reason.ERROR, a.activity().at(), "collective mismatch");
        }
        ArrivalGroups groups = group(List.of(slot.arrivals));
        error(groups.primary(), "collective mismatch on comm " + slot.comm.name() + ": " + String.join(", ", groups.parts())
                + rootFix(List.of(slot.arrivals)), groups.notes());
    }

    /**
     * What to change when the members reached the same collective with different roots, most often a root computed
     * from the rank ({@code root="rank"}); the positions alone do not say that the root must be the same everywhere.
     */
    private static String rootFix(List<CollectiveRendezvous.Arrival> arrivals) {
        boolean sameKind = arrivals.stream().map(a -> IrActivity.elementName(a.activity())).distinct().count() == 1;
        long roots = arrivals.stream().map(CollectiveRendezvous.Arrival::root).filter(java.util.Objects::nonNull).distinct().count();
        return sameKind && roots > 1
                ? " (every member must name the same root: make root a value all ranks agree on, e.g. 0 or a param, not one"
                        + " that depends on rank)"
                : "";
    }
}
