package org.mpfl.compiler.diag;

import java.util.Comparator;
import java.util.Objects;

/** One message of the compiler about a place in a document. */
public record Diagnostic(SourceLocation location, Severity severity, String message) implements Comparable<Diagnostic> {

    private static final Comparator<Diagnostic> ORDER = Comparator.comparing(Diagnostic::location)
            .thenComparing(Diagnostic::severity)
            .thenComparing(Diagnostic::message);

    public Diagnostic {
        Objects.requireNonNull(location, "location");
        Objects.requireNonNull(severity, "severity");
        Objects.requireNonNull(message, "message");
    }

    /** {@code FILE:LINE:COL: error: message}, the format editors and CI logs understand. */
    public String format() {
        return location + ": " + severity.label() + ": " + message;
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
