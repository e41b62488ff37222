package org.mpfl.runtime.transport.soap;

import java.io.Closeable;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeUnit;
import org.mpfl.protocol.tls.TlsSettings;

/**
 * Idle persistent connections per {@code host:port}. Callers take one, use it for one exchange and
 * give it back; a connection idle longer than the server's keep-alive is dropped instead of reused
 * (the stale-connection failure the Axis2 notes report), and one that yields no response at all is
 * retried once on a fresh connection by the caller.
 */
final class HttpConnectionPool implements Closeable {
    private final Map<String, ConcurrentLinkedDeque<HttpConnection>> idle = new ConcurrentHashMap<>();
    private final int connectTimeoutMs;
    private final int readTimeoutMs;
    private final long maxIdleNanos;
    /** TLS for every connection, or {@code null} for plaintext. */
    private final TlsSettings tls;
    private volatile boolean closed;

    HttpConnectionPool(int connectTimeoutMs, int readTimeoutMs, long maxIdleMs, TlsSettings tls) {
        this.tls = tls;
        this.connectTimeoutMs = connectTimeoutMs;
        this.readTimeoutMs = readTimeoutMs;
        this.maxIdleNanos = TimeUnit.MILLISECONDS.toNanos(maxIdleMs);
    }

    /** An idle connection to that address (most recently used first), or a new one. */
    HttpConnection acquire(String host, int port) throws IOException {
        if (closed) {
            throw new IOException("SOAP transport closed");
        }
        ConcurrentLinkedDeque<HttpConnection> q = idle.get(host + ":" + port);
        if (q != null) {
            HttpConnection c;
            long now = System.nanoTime();
            while ((c = q.pollFirst()) != null) {
                if (c.reusable() && now - c.lastUsedNanos() < maxIdleNanos) {
                    return c;
                }
                c.close();
            }
        }
        return open(host, port);
    }

    HttpConnection open(String host, int port) throws IOException {
        return new HttpConnection(host, port, connectTimeoutMs, readTimeoutMs, tls);
    }

    /** Gives a connection back after a complete exchange; broken ones are closed. */
    void release(HttpConnection c) {
        if (closed || !c.reusable()) {
            c.close();
            return;
        }
        idle.computeIfAbsent(c.hostPort(), k -> new ConcurrentLinkedDeque<>()).addFirst(c);
    }

    @Override
    public void close() {
        closed = true;
        for (ConcurrentLinkedDeque<HttpConnection> q : idle.values()) {
            HttpConnection c;
            while ((c = q.pollFirst()) != null) {
                c.close();
            }
        }
    }
}
