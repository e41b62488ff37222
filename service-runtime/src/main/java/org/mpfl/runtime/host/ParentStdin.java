package org.mpfl.runtime.host;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A host's standard input as its launcher's channel, read by one thread: first, with
 * {@code --credential-stdin}, the launcher's hand-over line (the engine's URL and this host's credential,
 * {@link org.mpfl.protocol.HostCredential#line()}); then, with {@code --exit-with-parent}, its end, which
 * means that the launcher is gone. One reader for both, because a second one could swallow the line.
 */
final class ParentStdin {
    /** The longest hand-over line accepted (a credential's line is about 300 characters). */
    static final int MAX_LINE = 16 * 1024;

    private final CompletableFuture<String> line = new CompletableFuture<>();

    private ParentStdin() {
    }

    /**
     * Starts the reader (a daemon thread).
     *
     * @param expectLine whether the input starts with a hand-over line ({@link #awaitLine})
     * @param onEnd      run when the input ends (after the line, if one is expected) or cannot be read;
     *                   {@code null}: stop reading once the line is there
     */
    static ParentStdin watch(InputStream in, boolean expectLine, Runnable onEnd) {
        ParentStdin s = new ParentStdin();
        if (!expectLine) {
            s.line.completeExceptionally(new IllegalStateException("no hand-over line expected"));
        }
        Thread t = new Thread(() -> s.read(in, expectLine, onEnd), "mpfl-parent-stdin");
        t.setDaemon(true);
        t.start();
        return s;
    }

    private void read(InputStream in, boolean expectLine, Runnable onEnd) {
        try {
            if (expectLine && !readLine(in)) {
                return;
            }
            if (onEnd == null) {
                return;
            }
            while (in.read() >= 0) {
                // the launcher writes nothing after the line; the end of the input is the message
            }
        } catch (IOException e) {
            if (line.completeExceptionally(new IOException("cannot read standard input: " + e.getMessage(), e))) {
                return;
            }
            System.err.println("mpflc host: cannot read standard input: " + e);
        }
        if (onEnd != null) {
            onEnd.run();
        }
    }

    /** Reads the hand-over line; {@code false} when there was none (the waiter is told why). */
    private boolean readLine(InputStream in) throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream(512);
        int b;
        while ((b = in.read()) >= 0 && b != '\n') {
            if (buf.size() >= MAX_LINE) {
                line.completeExceptionally(new IOException("the line on standard input is longer than " + MAX_LINE
                        + " bytes: not a credential line"));
                return false;
            }
            buf.write(b);
        }
        if (b < 0) {
            line.completeExceptionally(new EOFException("standard input closed before the engine's URL and this host's"
                    + " credential arrived (--credential-stdin): the launcher is gone or gave none"));
            return false;
        }
        line.complete(buf.toString(StandardCharsets.UTF_8).strip());
        return true;
    }

    /**
     * The hand-over line, waiting at most {@code timeout}.
     *
     * @throws IOException the input ended or failed before the line, or no line came within the timeout
     */
    String awaitLine(Duration timeout) throws IOException, InterruptedException {
        try {
            return line.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new IOException("no engine URL and credential on standard input within " + timeout.toSeconds()
                    + " s (--credential-stdin, --credential-timeout): giving up");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw new IllegalStateException(e.getCause());
        }
    }
}
