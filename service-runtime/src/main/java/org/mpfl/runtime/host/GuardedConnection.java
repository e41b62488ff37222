package org.mpfl.runtime.host;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import org.apache.axis2.transport.http.server.AxisHttpConnectionImpl;
import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.config.Http1Config;
import org.apache.hc.core5.http.io.SocketConfig;
import org.apache.hc.core5.io.CloseMode;
import org.apache.hc.core5.util.Timeout;
import org.mpfl.protocol.guard.ConnectionGuard;

/**
 * A SOAP connection of the host under its {@link ConnectionGuard}: until the connection proves a
 * credential ({@link #proveCurrent}: the engine's key in a request head, a store's domain-token proof),
 * every read waits at most the proof deadline and each request — TLS handshake, head, body up to the
 * proof — must be done within it, else the guard closes the TCP socket under it (which also ends a
 * TLS handshake a stranger stalls). A proven connection reads with the host's normal socket time-out,
 * as before. The request's thread knows its connection ({@link #proveCurrent} is called by the worker,
 * which Axis2 runs in the connection's thread).
 *
 * <p>A request's body can also be {@linkplain #boundCurrentBody bounded} until the request proves a credential: Axis2's
 * object model reads a SOAP element's whole text into memory ({@code status} and {@code abort} serialise their request,
 * a store's fields are read before its header is admitted), so without a bound a caller with no credential at all could
 * make the host hold whatever it sends within the deadline — from a known address, without any deadline. Past the bound
 * the connection is closed, nothing more read.
 */
final class GuardedConnection extends AxisHttpConnectionImpl {
    private static final ThreadLocal<GuardedConnection> CURRENT = new ThreadLocal<>();

    private final Socket raw;
    private final ConnectionGuard.Pass pass;
    private final int provenTimeoutMs;
    /** The bound on this request's body until it proves a credential ({@code -1}: none). */
    private long bodyBound = -1;
    private UnprovenBody bounded;

    /**
     * @param raw    the accepted TCP socket ({@code socket} is TLS layered over it, or it)
     * @param socket what HTTP is spoken over
     */
    GuardedConnection(String scheme, Socket raw, Socket socket, Http1Config http1, SocketConfig config,
                      ConnectionGuard.Pass pass) throws IOException {
        super(scheme, socket, http1, config);
        this.raw = raw;
        this.pass = pass;
        this.provenTimeoutMs = config.getSoTimeout().toMillisecondsIntBound();
        if (pass.stranger()) {
            raw.setSoTimeout((int) pass.proofDeadline().toMillis());
        }
    }

    /** The guard's close action: closes the TCP socket (never blocks on TLS). */
    static void closeRaw(Socket raw) {
        try {
            raw.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    @Override
    public ClassicHttpRequest receiveRequest() throws HttpException, IOException {
        CURRENT.set(this);
        // a keep-alive connection's next request gets the deadline again, unless proven
        pass.arm();
        bodyBound = -1;
        bounded = null;
        return super.receiveRequest();
    }

    /**
     * Reads at most {@code maxBytes} of the current request's body until it proves a credential ({@link #proveCurrent}
     * lifts the bound); past it the connection is closed. For the requests Axis2's object model reads.
     */
    static void boundCurrentBody(long maxBytes) {
        GuardedConnection c = CURRENT.get();
        if (c != null) {
            c.bodyBound = maxBytes;
            c.bounded = null;
        }
    }

    @Override
    public InputStream getInputStream() {
        InputStream in = super.getInputStream();
        if (bodyBound < 0 || in == null) {
            return in;
        }
        if (bounded == null || !bounded.wraps(in)) {
            // past the bound the TCP socket is closed under the reader: nothing more is read
            bounded = new UnprovenBody(in, bodyBound, () -> closeRaw(raw));
        }
        return bounded;
    }

    /** The connection of the request this thread serves proved a credential. */
    static void proveCurrent() {
        // in a servlet container the body's bound is the web application's (org.mpfl.war)
        UnprovenBody.proveCurrent();
        GuardedConnection c = CURRENT.get();
        if (c != null) {
            // this request proved itself: its body is no stranger's
            c.bodyBound = -1;
            if (c.bounded != null) {
                c.bounded.lift();
            }
        }
        if (c != null && !c.pass.proven()) {
            boolean wasStranger = c.pass.stranger();
            c.pass.prove();
            if (!wasStranger) {
                return;
            }
            try {
                c.raw.setSoTimeout(c.provenTimeoutMs);
            } catch (SocketException ignored) {
                // closed meanwhile
            }
        }
    }

    @Override
    public void setSocketTimeout(Timeout timeout) {
        // a stranger's reads keep the proof deadline
        if (!pass.stranger()) {
            super.setSocketTimeout(timeout);
        }
    }

    @Override
    public void close() throws IOException {
        release();
        super.close();
    }

    @Override
    public void close(CloseMode mode) {
        release();
        super.close(mode);
    }

    @Override
    public void shutdown() throws IOException {
        release();
        super.shutdown();
    }

    private void release() {
        pass.close();
        if (CURRENT.get() == this) {
            CURRENT.remove();
        }
    }
}
