package org.mpfl.runtime.interp.kernel;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Turns one output stream of a kernel worker (its stdout or stderr) into the rank's log lines. A
 * kernel may print without limit: the lines of one call are forwarded up to a byte budget and the
 * rest only counted ({@link #takeDropped}), and an over-long line is cut, so that printing never
 * floods the engine nor blocks the worker (the pipe is always drained). A line's control characters
 * are shown as escapes ({@link #visible}); a line the call left without its newline is shown when the
 * call ends ({@link #callEnded}), not only when the worker does.
 */
final class OutputPump implements Runnable {
    static final int MAX_LINE_BYTES = 8 * 1024;
    private static final int TAIL_LINES = 20;

    /** Where forwarded lines go. */
    interface Sink {
        void line(String level, String text);
    }

    private final InputStream in;
    private final String level;
    private final Sink sink;
    private final AtomicLong budget;
    private final AtomicLong dropped = new AtomicLong();
    private final Deque<String> tail = new ArrayDeque<>();
    private final Thread thread;
    // the line being read, shared by this pump's thread and the rank's (callEnded): guarded by this
    private final byte[] line = new byte[MAX_LINE_BYTES];
    private int length;
    private boolean cut;
    /** From the end of a call to the start of the next: what is read then is the ended call's, shown at once. */
    private boolean betweenCalls;
    /** A line was shown before its newline came: that newline, when it comes next, ends no other line. */
    private boolean shownOpen;

    OutputPump(InputStream in, String level, Sink sink, AtomicLong budget, String threadName) {
        this.in = in;
        this.level = level;
        this.sink = sink;
        this.budget = budget;
        this.thread = new Thread(this, threadName);
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public void run() {
        byte[] chunk = new byte[64 * 1024];
        try {
            int n;
            while ((n = in.read(chunk)) >= 0) {
                accept(chunk, n);
            }
        } catch (IOException e) {
            // the worker is gone: its last partial line follows
        }
        synchronized (this) {
            emitPartial();
        }
    }

    private synchronized void accept(byte[] chunk, int n) {
        for (int i = 0; i < n; i++) {
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

    /**
     * A call ended (the worker answered): the line it left without a newline ({@code print("x", end="")}) is shown
     * now, and what the pump reads until the next call starts is shown as it comes. Bytes the kernel wrote just before
     * answering that this pump had not read yet are read then, so such a line shows at the latest at the end of the
     * next call (this thread cannot tell an empty pipe from a slow pump without blocking on it).
     */
    synchronized void callEnded() {
        betweenCalls = true;
        emitPartial();
    }

    private void emitPartial() {
        if (length > 0 || cut) {
            emit(length);
            shownOpen = true;
        }
    }

    private void emit(int shown) {
        String text = visible(new String(line, 0, shown, StandardCharsets.UTF_8))
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

    /** Waits (bounded) until the stream ended and every line of it went to the sink. */
    void drain(long waitMs) {
        try {
            thread.join(waitMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits (bounded) until the stream ended, then returns its last lines (for a worker that died). */
    List<String> tail(long waitMs) {
        drain(waitMs);
        synchronized (tail) {
            return List.copyOf(tail);
        }
    }
}
