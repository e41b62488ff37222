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
 * floods the engine nor blocks the worker (the pipe is always drained).
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
        byte[] line = new byte[MAX_LINE_BYTES];
        int length = 0;
        boolean cut = false;
        byte[] chunk = new byte[64 * 1024];
        try {
            int n;
            while ((n = in.read(chunk)) >= 0) {
                for (int i = 0; i < n; i++) {
                    byte b = chunk[i];
                    if (b == '\n') {
                        emit(line, length, cut);
                        length = 0;
                        cut = false;
                    } else if (length < line.length) {
                        line[length++] = b;
                    } else {
                        cut = true;
                    }
                }
            }
        } catch (IOException e) {
            // the worker is gone: its last partial line follows
        }
        if (length > 0) {
            emit(line, length, cut);
        }
    }

    private void emit(byte[] bytes, int length, boolean cut) {
        String text = new String(bytes, 0, length, StandardCharsets.UTF_8) + (cut ? " [line cut at " + MAX_LINE_BYTES + " bytes]" : "");
        synchronized (tail) {
            tail.addLast(text);
            if (tail.size() > TAIL_LINES) {
                tail.removeFirst();
            }
        }
        if (budget.addAndGet(-(length + 1L)) >= 0) {
            sink.line(level, text);
        } else {
            dropped.incrementAndGet();
        }
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
