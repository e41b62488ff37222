package org.mpfl.runtime.interp.kernel;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.Charset;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.mpfl.runtime.settings.RuntimeSettings;

/**
 * What a rank's Java activities ({@code <compute class>}) write to {@code System.out} and {@code System.err}, as the
 * rank's log lines (info and warn), shown as a Python kernel's {@code print} lines are ({@link OutputLines}: the same
 * byte budget per call, line cut, escapes, and a line left open shown when the call ends). A host's standard output
 * is drained and thrown away, and {@code mpflc run --local} would show the lines without their rank.
 *
 * <p>{@code System.out} and {@code System.err} are replaced once per JVM ({@link #install}, again if someone set
 * others since) by streams that look at the writing thread: a thread in an activity's call ({@link #begin} to
 * {@link Call#end}) writes to its rank's lines, every other thread — the host's own log, Axis2, the engine of
 * {@code run --local} — writes to the stream that was there before, as it did. A call that prints nothing costs
 * setting and clearing a thread-local.
 */
public final class JavaKernelOutput {
    /** The lines of the activity call the current thread is in, if any. */
    private static final ThreadLocal<Lines> CURRENT = new ThreadLocal<>();

    private final OutputPump.Sink log;
    private final long bytesPerCall;
    private final AtomicLong budget;
    /**
     * Each thread's own lines (the rank's, and those of its {@code parallel} branches, which may print at once): one
     * thread's line left open is not joined to another's. Weak keys: a branch's thread that ended takes its lines
     * along. Guarded by this.
     */
    private final Map<Thread, Lines> threads = new WeakHashMap<>();
    /** Calls of this rank in progress (its {@code parallel} branches may each be in one): guarded by this. */
    private int calls;

    /** The two streams' lines of one thread of the rank. */
    private record Lines(OutputLines out, OutputLines err) {
    }

    /** @param log the rank's log: standard output's lines go there as info, standard error's as warn */
    public JavaKernelOutput(RankKernels.LogSink log) {
        this.log = (level, text) -> {
            // the rank's log may itself print (run --local's follower, a test's sink): that is not the activity's
            Lines current = CURRENT.get();
            CURRENT.remove();
            try {
                log.line(level, text);
            } finally {
                CURRENT.set(current);
            }
        };
        this.bytesPerCall = RuntimeSettings.KERNEL_LOG_BYTES_PER_CALL.get();
        this.budget = new AtomicLong(bytesPerCall);
    }

    /** The current thread starts an activity's call: what it prints until {@link Call#end} is this rank's. */
    public Call begin() {
        install();
        Lines lines;
        synchronized (this) {
            if (calls++ == 0) {
                budget.set(bytesPerCall);
            }
            lines = threads.computeIfAbsent(Thread.currentThread(), t -> new Lines(
                    new OutputLines("info", log, budget, RankStream.charset("sun.stdout.encoding")),
                    new OutputLines("warn", log, budget, RankStream.charset("sun.stderr.encoding"))));
        }
        lines.out().callStarts();
        lines.err().callStarts();
        Lines previous = CURRENT.get();
        CURRENT.set(lines);
        return () -> {
            if (previous == null) {
                CURRENT.remove();
            } else {
                CURRENT.set(previous);
            }
            // a line the call printed without its newline shows now, as a Python kernel's does
            lines.out().callEnded();
            lines.err().callEnded();
            synchronized (this) {
                if (--calls == 0) {
                    long dropped = 0;
                    for (Lines l : threads.values()) {
                        dropped += l.out().takeDropped() + l.err().takeDropped();
                    }
                    if (dropped > 0) {
                        log.line("warn", dropped + " lines of kernel output not shown (more than " + bytesPerCall
                                + " bytes in one call; mpfl.kernel.logBytesPerCall)");
                    }
                }
            }
        };
    }

    /** The end of an activity's call ({@link #begin}). */
    @FunctionalInterface
    public interface Call {
        void end();
    }

    /** Puts the rank streams in place of {@code System.out} and {@code System.err}, unless they are there. */
    static void install() {
        if (System.out instanceof RankPrintStream && System.err instanceof RankPrintStream) {
            return;
        }
        synchronized (JavaKernelOutput.class) {
            if (!(System.out instanceof RankPrintStream)) {
                System.setOut(new RankPrintStream(System.out, false, RankStream.charset("sun.stdout.encoding")));
            }
            if (!(System.err instanceof RankPrintStream)) {
                System.setErr(new RankPrintStream(System.err, true, RankStream.charset("sun.stderr.encoding")));
            }
        }
    }

    /** {@code System.out} or {@code System.err} while rank streams are installed (its class is how it is known). */
    private static final class RankPrintStream extends PrintStream {
        RankPrintStream(PrintStream previous, boolean error, Charset charset) {
            super(new RankStream(previous, error), true, charset);
        }
    }

    /** The bytes of one of the two streams: the writing thread's rank's, or else the previous stream's. */
    private static final class RankStream extends OutputStream {
        private final PrintStream previous;
        private final boolean error;

        RankStream(PrintStream previous, boolean error) {
            this.previous = previous;
            this.error = error;
        }

        /** The charset the JVM gave the standard stream (the encoding {@code System.out} had, and so its bytes). */
        static Charset charset(String property) {
            String name = System.getProperty(property);
            try {
                return name == null ? Charset.defaultCharset() : Charset.forName(name);
            } catch (IllegalArgumentException e) {
                return Charset.defaultCharset();
            }
        }

        @Override
        public void write(int b) {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            Lines lines = CURRENT.get();
            if (lines == null || fromLogger()) {
                previous.write(b, off, len);
            } else {
                (error ? lines.err() : lines.out()).accept(b, off, len);
            }
        }

        @Override
        public void flush() {
            if (CURRENT.get() == null) {
                previous.flush();
            }
        }

        @Override
        public void close() throws IOException {
            // System.out.close() in an activity must not close the host's standard output
            flush();
        }

        /**
         * Whether the host's own logger (SLF4J's simple logger, which writes to {@code System.err}) writes: a runtime
         * method an activity calls may log on the rank's thread, and its line is the host's, not the activity's.
         * Asked only for what a rank's thread writes, so a call that prints nothing never asks it.
         */
        private static boolean fromLogger() {
            return StackWalker.getInstance().walk(frames -> frames.limit(40)
                    .anyMatch(f -> f.getClassName().startsWith("org.slf4j.")));
        }
    }
}
