package org.mpfl.runtime.host;

import java.io.IOException;
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
 */
final class GuardedConnection extends AxisHttpConnectionImpl {
    private static final ThreadLocal<GuardedConnection> CURRENT = new ThreadLocal<>();

    private final Socket raw;
    private final ConnectionGuard.Pass pass;
    private final int provenTimeoutMs;

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
        return super.receiveRequest();
    }

    /** The connection of the request this thread serves proved a credential. */
    static void proveCurrent() {
        GuardedConnection c = CURRENT.get();
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
