package org.mpfl.ir.diag;

import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * One message of the compiler about a place in a document, optionally with notes pointing at other
 * places involved (e.g. every rank's position in a deadlock cycle), printed GCC-style after it as
 * {@code FILE:LINE:COL: note: message}.
 */
public record Diagnostic(SourceLocation location, Severity severity, String message, List<Note> notes)
        implements Comparable<Diagnostic> {

    /** A secondary location of a diagnostic. */
    public record Note(SourceLocation location, String message) {
        public Note {
            Objects.requireNonNull(location, "location");
            Objects.requireNonNull(message, "message");
        }

        public String format() {
            return location + ": note: " + message;
        }
    }

    private static final Comparator<Diagnostic> ORDER = Comparator.comparing(Diagnostic::location)
            .thenComparing(Diagnostic::severity)
            .thenComparing(Diagnostic::message);

    public Diagnostic {
        Objects.requireNonNull(location, "location");
        Objects.requireNonNull(severity, "severity");
        Objects.requireNonNull(message, "message");
        notes = notes == null ? List.of() : List.copyOf(notes);
    }

    /** A diagnostic without notes. */
    public Diagnostic(SourceLocation location, Severity severity, String message) {
        this(location, severity, message, List.of());
    }

    /** {@code FILE:LINE:COL: error: message}, the format editors and CI logs understand (notes not included). */
    public String format() {
        return location + ": " + severity.label() + ": " + message;
    }

    /** The diagnostic line followed by one line per note. */
    public List<String> formatWithNotes() {
        java.util.ArrayList<String> lines = new java.util.ArrayList<>();
        lines.add(format());
        notes.forEach(n -> lines.add(n.format()));
        return lines;
    }

    @Override
    public String toString() {
        return format();
    }

    @Override
    public int compareTo(Diagnostic other) {
        return ORDER.compare(this, other);
    }
}
