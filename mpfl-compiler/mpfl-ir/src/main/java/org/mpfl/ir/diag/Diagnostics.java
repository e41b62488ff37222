package org.mpfl.ir.diag;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Collects every diagnostic of a compilation; nothing stops at the first error, so a user sees all
 * problems of a document at once. Identical diagnostics (same place, same message) are kept once,
 * because a shared sub-expression may be visited by more than one check.
 */
public final class Diagnostics {
    private final Set<Diagnostic> collected = new LinkedHashSet<>();

    public void error(SourceLocation at, String message) {
        report(new Diagnostic(at, Severity.ERROR, message));
    }

    public void warning(SourceLocation at, String message) {
        report(new Diagnostic(at, Severity.WARNING, message));
    }

    /** An error with notes at the other locations involved. */
    public void error(SourceLocation at, String message, java.util.List<Diagnostic.Note> notes) {
        report(new Diagnostic(at, Severity.ERROR, message, notes));
    }

    public void report(Diagnostic diagnostic) {
        collected.add(diagnostic);
    }

    public void addAll(Diagnostics other) {
        collected.addAll(other.collected);
    }

    public boolean hasErrors() {
        return collected.stream().anyMatch(d -> d.severity() == Severity.ERROR);
    }

    public int errorCount() {
        return (int) collected.stream().filter(d -> d.severity() == Severity.ERROR).count();
    }

    public boolean isEmpty() {
        return collected.isEmpty();
    }

    /** All diagnostics sorted by file, line, column. */
    public List<Diagnostic> sorted() {
        List<Diagnostic> list = new ArrayList<>(collected);
        list.sort(null);
        return list;
    }

    /** Prints every diagnostic in position order, one per line, each followed by its notes. */
    public void printTo(PrintStream out) {
        for (Diagnostic d : sorted()) {
            d.formatWithNotes().forEach(out::println);
        }
    }
}
