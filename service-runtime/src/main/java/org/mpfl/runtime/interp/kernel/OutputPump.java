package org.mpfl.runtime.interp.kernel;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Turns one output stream of a kernel worker (its stdout or stderr) into the rank's log lines ({@link OutputLines}:
 * a byte budget per call, over-long lines cut, control characters escaped, a line left open shown at the call's end).
 * The pipe is always drained, so that printing never blocks the worker.
 */
final class OutputPump implements Runnable {
    static final int MAX_LINE_BYTES = OutputLines.MAX_LINE_BYTES;

    /** Where forwarded lines go. */
    interface Sink {
        void line(String level, String text);
    }

    private final InputStream in;
    private final OutputLines lines;
    private final Thread thread;

    OutputPump(InputStream in, String level, Sink sink, AtomicLong budget, String threadName) {
        this.in = in;
        this.lines = new OutputLines(level, sink, budget, StandardCharsets.UTF_8);
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
                lines.accept(chunk, 0, n);
            }
        } catch (IOException e) {
            // the worker is gone: its last partial line follows
        }
        lines.ended();
    }

    /** A call starts: a line it prints without its newline waits for the newline (or the call's end). */
    void callStarts() {
        lines.callStarts();
    }

    /**
     * A call ended (the worker answered): the line it left without a newline ({@code print("x", end="")}) is shown
     * now, and what the pump reads until the next call starts is shown as it comes. Bytes the kernel wrote just before
     * answering that this pump had not read yet are read then, so such a line shows at the latest at the end of the
     * next call (this thread cannot tell an empty pipe from a slow pump without blocking on it).
     */
    void callEnded() {
        lines.callEnded();
    }

    /** Lines not forwarded since the last call of this method. */
    long takeDropped() {
        return lines.takeDropped();
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
        return lines.tail();
    }
}
