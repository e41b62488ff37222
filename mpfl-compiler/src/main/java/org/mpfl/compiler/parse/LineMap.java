package org.mpfl.compiler.parse;

import java.util.ArrayList;
import java.util.List;
import org.mpfl.ir.diag.SourceLocation;

/** Converts character offsets of a source text to 1-based line/column and back (CR, LF and CRLF end lines). */
final class LineMap {
    private final String file;
    private final int[] lineStarts;
    private final int length;

    LineMap(String file, String text) {
        this.file = file;
        this.length = text.length();
        List<Integer> starts = new ArrayList<>();
        starts.add(0);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\r' && i + 1 < text.length() && text.charAt(i + 1) == '\n') {
                i++;
                starts.add(i + 1);
            } else if (c == '\n' || c == '\r') {
                starts.add(i + 1);
            }
        }
        lineStarts = starts.stream().mapToInt(Integer::intValue).toArray();
    }

    SourceLocation location(int offset) {
        int clamped = Math.max(0, Math.min(offset, length));
        int low = 0;
        int high = lineStarts.length - 1;
        while (low < high) {
            int mid = (low + high + 1) >>> 1;
            if (lineStarts[mid] <= clamped) {
                low = mid;
            } else {
                high = mid - 1;
            }
        }
        return new SourceLocation(file, low + 1, clamped - lineStarts[low] + 1);
    }

    /** The offset of a 1-based line/column, or -1 if outside the text. */
    int offset(int line, int column) {
        if (line < 1 || line > lineStarts.length || column < 1) {
            return -1;
        }
        int offset = lineStarts[line - 1] + column - 1;
        return offset > length ? -1 : offset;
    }
}
