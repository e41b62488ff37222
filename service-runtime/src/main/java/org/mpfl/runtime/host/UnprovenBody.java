package org.mpfl.runtime.host;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * A request body read at most {@code mpfl.host.unprovenBodyBytes} (1 MiB) until its request proves a credential
 * (docs/security.md, "Bodies read through Axis2"). Axis2's object model holds an element's whole text in memory, so a
 * caller with no credential could otherwise make a host hold whatever it sends. Past the bound the overflow action runs
 * (the stand-alone host closes the TCP socket, a servlet container's filter asks for the connection to end) and the
 * read fails; nothing more is read. The receivers {@linkplain #proveCurrent() lift} the bound of the body their thread
 * reads once the request proved itself (a store's domain-token proof, checked before its payload).
 */
public final class UnprovenBody extends FilterInputStream {
    /** The bounded body of the request this thread serves (a servlet container's; the stand-alone host keeps its own). */
    private static final ThreadLocal<UnprovenBody> CURRENT = new ThreadLocal<>();

    private final long bound;
    private final Runnable onOverflow;
    /** Bytes still to be read before the request must prove a credential; {@code -1}: lifted. */
    private volatile long left;

    /**
     * @param bound      bytes read at most before a proof
     * @param onOverflow run once the bound is reached, before the read fails
     */
    public UnprovenBody(InputStream in, long bound, Runnable onOverflow) {
        super(in);
        this.bound = bound;
        this.onOverflow = onOverflow;
        this.left = bound;
    }

    /** The bound the host is configured with ({@code mpfl.host.unprovenBodyBytes}). */
    public static long configuredBound() {
        return org.mpfl.runtime.settings.RuntimeSettings.HOST_UNPROVEN_BODY_BYTES.get();
    }

    /** Makes this the body whose bound {@link #proveCurrent()} lifts in this thread, until {@link #release()}. */
    public UnprovenBody servedByThisThread() {
        CURRENT.set(this);
        return this;
    }

    /** The request is done: this thread serves this body no more. */
    public void release() {
        if (CURRENT.get() == this) {
            CURRENT.remove();
        }
    }

    /** The request whose body this thread reads proved a credential: its body is read on without bound. */
    static void proveCurrent() {
        UnprovenBody b = CURRENT.get();
        if (b != null) {
            b.lift();
        }
    }

    /** Lifts the bound. */
    void lift() {
        left = -1;
    }

    /** Whether this bounds {@code stream}. */
    boolean wraps(InputStream stream) {
        return in == stream;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        long l = left;
        if (l < 0) {
            return super.read(b, off, len);
        }
        if (l == 0) {
            onOverflow.run();
            throw new IOException("request body over " + bound + " bytes before any credential: not read further");
        }
        int n = super.read(b, off, (int) Math.min(len, l));
        if (n > 0 && left >= 0) {
            left -= n;
        }
        return n;
    }

    @Override
    public long skip(long n) throws IOException {
        // through read, so that skipped bytes count too
        int r = n <= 0 ? 0 : read(new byte[(int) Math.min(n, 8192)], 0, (int) Math.min(n, 8192));
        return Math.max(0, r);
    }
}
