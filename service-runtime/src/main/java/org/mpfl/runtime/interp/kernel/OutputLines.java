package org.mpfl.runtime.interp.kernel;

import java.nio.charset.Charset;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes a kernel writes to one of its output streams, as the rank's log lines: the lines of one call are
 * forwarded up to a byte budget and the rest only counted ({@link #takeDropped}), an over-long line is cut, a line's
 * control characters are shown as escapes ({@link #visible}), and a line the call left without its newline is shown
 * when the call ends ({@link #callEnded}). Shared by a kernel worker's pipes ({@link OutputPump}) and a Java
 * activity's {@code System.out}/{@code System.err} ({@link JavaKernelOutput}), so that both show alike.
 */
final class OutputLines {
    static final int MAX_LINE_BYTES = 8 * 1024;
    private static final int TAIL_LINES = 20;

    private final String level;
    private final OutputPump.Sink sink;
    private final AtomicLong budget;
    private final Charset charset;
    private final AtomicLong dropped = new AtomicLong();
    private final Deque<String> tail = new ArrayDeque<>();
    // the line being assembled, shared by the writer and the rank's thread (callEnded): guarded by this
    private final byte[] line = new byte[MAX_LINE_BYTES];
    private int length;
    private boolean cut;
    /** From the end of a call to the start of the next: what comes then is the ended call's, shown at once. */
    private boolean betweenCalls;
    /** A line was shown before its newline came: that newline, when it comes next, ends no other line. */
    private boolean shownOpen;

    OutputLines(String level, OutputPump.Sink sink, AtomicLong budget, Charset charset) {
        this.level = level;
        this.sink = sink;
        this.budget = budget;
        this.charset = charset;
    }

    /** Takes {@code n} bytes the kernel wrote. */
    synchronized void accept(byte[] chunk, int offset, int n) {
        for (int i = offset; i < offset + n; i++) {
            byte b = chunk[i];
            boolean endsShownLine = shownOpen && b == '\n' && length == 0;
            shownOpen = false;
            if (endsShownLine) {
                continue;
            }
            if (b == '\n') {
                // a CRLF line ending is a line ending, not a carriage return to show
                emit(length > 0 && !cut && line[length - 1] == '\r' ? length - 1 : length);
            } else if (length < line.length) {
                line[length++] = b;
            } else {
                cut = true;
            }
        }
        if (betweenCalls) {
            // printed by the call that just ended (read after its answer came), or between calls
            emitPartial();
        }
    }

    /** A call starts: a line it prints without its newline waits for the newline (or the call's end). */
    synchronized void callStarts() {
        betweenCalls = false;
    }

    /** A call ended: the line it left without a newline is shown now, and what comes until the next call at once. */
    synchronized void callEnded() {
        betweenCalls = true;
        emitPartial();
    }

    /** The stream ended: its last line, if it had no newline, is shown. */
    synchronized void ended() {
        emitPartial();
    }

    private void emitPartial() {
        if (length > 0 || cut) {
            emit(length);
            shownOpen = true;
        }
    }

    private void emit(int shown) {
        String text = visible(new String(line, 0, shown, charset))
                + (cut ? " [line cut at " + MAX_LINE_BYTES + " bytes]" : "");
        long size = length + 1L;
        length = 0;
        cut = false;
        synchronized (tail) {
            tail.addLast(text);
            if (tail.size() > TAIL_LINES) {
                tail.removeFirst();
            }
        }
        if (budget.addAndGet(-size) >= 0) {
            sink.line(level, text);
        } else {
            dropped.incrementAndGet();
        }
    }

    /**
     * {@code text} with its control characters (C0 but the tab, DEL, C1) written as escapes, {@code \x1b} for ESC:
     * a kernel's lines reach terminals (the engine's console, {@code mpflc run} and {@code status}), where an escape
     * sequence or a carriage return would recolour, move the cursor, retitle the window or overwrite what was shown.
     * Every other character, UTF-8 text included, is kept.
     */
    static String visible(String text) {
        StringBuilder out = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean control = (c < 0x20 && c != '\t') || (c >= 0x7f && c <= 0x9f);
            if (control && out == null) {
                out = new StringBuilder(text.length() + 16).append(text, 0, i);
            }
            if (control) {
                out.append("\\x").append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 0xf, 16));
            } else if (out != null) {
                out.append(c);
            }
        }
        return out == null ? text : out.toString();
    }

    /** Lines not forwarded since the last call of this method. */
    long takeDropped() {
        return dropped.getAndSet(0);
    }

    /** The last lines shown or counted. */
    List<String> tail() {
        synchronized (tail) {
            return List.copyOf(tail);
        }
    }
}
