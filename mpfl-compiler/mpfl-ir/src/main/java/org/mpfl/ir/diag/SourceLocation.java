package org.mpfl.ir.diag;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Comparator;

/**
 * A position in a source document: file name as given to the compiler, 1-based line and column.
 *
 * <p>In JSON (plan, IR) it is written compactly as {@code "file:line:column"} because every IR node
 * carries one; {@link #parse(String)} reads that form back (the file part may itself contain colons).
 */
public record SourceLocation(String file, int line, int column) implements Comparable<SourceLocation> {

    private static final Comparator<SourceLocation> ORDER = Comparator
            .comparing(SourceLocation::file, Comparator.nullsFirst(Comparator.naturalOrder()))
            .thenComparingInt(SourceLocation::line)
            .thenComparingInt(SourceLocation::column);

    /** The start of a file, for diagnostics that concern the whole document. */
    public static SourceLocation startOf(String file) {
        return new SourceLocation(file, 1, 1);
    }

    @JsonValue
    @Override
    public String toString() {
        return file + ":" + line + ":" + column;
    }

    /** Reads the {@link #toString()} form. */
    @JsonCreator
    public static SourceLocation parse(String text) {
        int lastColon = text.lastIndexOf(':');
        int middleColon = lastColon < 0 ? -1 : text.lastIndexOf(':', lastColon - 1);
        if (middleColon < 0) {
            throw new IllegalArgumentException("not a source location (file:line:column): " + text);
        }
        return new SourceLocation(text.substring(0, middleColon),
                Integer.parseInt(text.substring(middleColon + 1, lastColon)),
                Integer.parseInt(text.substring(lastColon + 1)));
    }

    @Override
    public int compareTo(SourceLocation other) {
        return ORDER.compare(this, other);
    }
}
