package org.mpfl.protocol.relay;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLSocket;

/**
 * Two connections joined: whatever arrives on one is written to the other, both ways, by one thread
 * per direction through a buffer of its own ({@link #BUFFER} bytes: a splice's memory is fixed). An
 * end that closes its sending side half-closes the other; when both directions ended (or either
 * failed) both connections are closed and {@code onEnd} runs once.
 */
final class Splice {
    static final int BUFFER = 32 * 1024;
    private final End a;
    private final End b;
    private final Runnable onEnd;
    private final AtomicInteger running = new AtomicInteger(2);
    private final AtomicBoolean ended = new AtomicBoolean();
    private final AtomicLong bytes;

    /** One connection of a splice: its socket (closed at the end) and its streams. */
    record End(Socket socket, InputStream in, OutputStream out) {
        static End of(Socket s) throws IOException {
            return new End(s, s.getInputStream(), s.getOutputStream());
        }
    }

    private Splice(End a, End b, AtomicLong bytes, Runnable onEnd) {
        this.a = a;
        this.b = b;
        this.bytes = bytes;
        this.onEnd = onEnd;
    }

    /** Starts copying both ways on two daemon threads named after {@code name}. */
    static void start(String name, End a, End b, AtomicLong bytes, Runnable onEnd) throws IOException {
        a.socket().setSoTimeout(0);
        b.socket().setSoTimeout(0);
        Splice s = new Splice(a, b, bytes, onEnd);
        s.pump(a, b, name + " >");
        s.pump(b, a, name + " <");
    }

    private void pump(End from, End to, String name) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[BUFFER];
            boolean clean = false;
            try {
                int n;
                while ((n = from.in().read(buf)) >= 0) {
                    to.out().write(buf, 0, n);
                    to.out().flush();
                    bytes.addAndGet(n);
                }
                if (to.socket() instanceof SSLSocket) {
                    clean = false; // TLS has no half-close: the splice ends with this direction
                } else {
                    to.socket().shutdownOutput();
                    clean = true;
                }
            } catch (IOException e) {
                // one side failed: the splice ends
            } finally {
                if (!clean || running.decrementAndGet() == 0) {
                    end();
                }
            }
        }, name);
        t.setDaemon(true);
        t.start();
    }

    private void end() {
        if (!ended.compareAndSet(false, true)) {
            return;
        }
        close(a.socket());
        close(b.socket());
        if (onEnd != null) {
            onEnd.run();
        }
    }

    static void close(java.io.Closeable c) {
        try {
            if (c != null) {
                c.close();
            }
        } catch (IOException e) {
            // closing
        }
    }
}
