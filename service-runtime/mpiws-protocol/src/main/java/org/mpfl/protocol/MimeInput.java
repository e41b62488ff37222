package org.mpfl.protocol;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * A buffered reader over a MIME multipart body: header lines, parts up to a delimiter, and parts of
 * known length read straight into the destination array. The staging buffer is per thread (server
 * worker threads are pooled), so a store allocates nothing but its payload array.
 */
public final class MimeInput {
    /**
     * Larger than the HTTP server's session buffer (128 KB), so that bulk reads of a payload go
     * from the socket straight into this buffer instead of through the session buffer too.
     */
    private static final int BUFFER_SIZE = 256 * 1024;
    private static final ThreadLocal<byte[]> BUFFERS = ThreadLocal.withInitial(() -> new byte[BUFFER_SIZE]);

    private final InputStream in;
    private final byte[] buf;
    private final ByteBuffer view;
    private int pos;
    private int lim;

    public MimeInput(InputStream in) {
        this.in = in;
        this.buf = BUFFERS.get();
        this.view = ByteBuffer.wrap(buf).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** Ensures at least {@code n} (≤ buffer size) bytes are buffered; returns false at end of stream. */
    private boolean ensure(int n) throws IOException {
        if (lim - pos >= n) {
            return true;
        }
        if (pos > 0) {
            System.arraycopy(buf, pos, buf, 0, lim - pos);
            lim -= pos;
            pos = 0;
        }
        while (lim < n) {
            int r = in.read(buf, lim, buf.length - lim);
            if (r < 0) {
                return false;
            }
            lim += r;
        }
        return true;
    }

    /** One line without its CRLF (ISO-8859-1), bounded to the buffer size. */
    public String readLine() throws IOException {
        for (;;) {
            for (int i = pos; i < lim; i++) {
                if (buf[i] == '\n') {
                    int end = (i > pos && buf[i - 1] == '\r') ? i - 1 : i;
                    String s = new String(buf, pos, end - pos, StandardCharsets.ISO_8859_1);
                    pos = i + 1;
                    return s;
                }
            }
            if (lim - pos >= buf.length) {
                throw new IOException("MIME header line too long");
            }
            if (!ensure(lim - pos + 1)) {
                throw new EOFException("end of MIME body inside a header line");
            }
        }
    }

    /** Whether the next bytes equal {@code s}; consumes them if so. */
    public boolean consumeIf(byte[] s) throws IOException {
        if (!ensure(s.length)) {
            return false;
        }
        for (int i = 0; i < s.length; i++) {
            if (buf[pos + i] != s[i]) {
                return false;
            }
        }
        pos += s.length;
        return true;
    }

    /**
     * Reads bytes up to {@code delimiter}, consumes the delimiter, and returns the bytes before it.
     *
     * @throws IOException if more than {@code max} bytes come before it, or the body ends
     */
    public byte[] readUntil(byte[] delimiter, long max) throws IOException {
        ByteArrayOutputStream acc = new ByteArrayOutputStream();
        byte first = delimiter[0];
        for (;;) {
            int searchEnd = lim - delimiter.length;
            for (int i = pos; i <= searchEnd; i++) {
                if (buf[i] == first && matches(i, delimiter)) {
                    acc.write(buf, pos, i - pos);
                    pos = i + delimiter.length;
                    return acc.toByteArray();
                }
            }
            // keep the last delimiter.length-1 bytes: they may start the delimiter
            int keep = Math.min(lim - pos, delimiter.length - 1);
            int take = lim - pos - keep;
            acc.write(buf, pos, take);
            pos += take;
            if (acc.size() > max) {
                throw new IOException("MIME part larger than " + max + " bytes");
            }
            if (!ensure(lim - pos + 1)) {
                throw new EOFException("end of MIME body before the closing delimiter");
            }
        }
    }

    /**
     * Like {@link #readUntil} but drops the bytes instead of keeping them: nothing is allocated, so
     * a refused part can be passed over whatever its size.
     *
     * @return how many bytes came before the delimiter
     * @throws IOException if more than {@code max} bytes come before it, or the body ends
     */
    public long skipUntil(byte[] delimiter, long max) throws IOException {
        long skipped = 0;
        byte first = delimiter[0];
        for (;;) {
            int searchEnd = lim - delimiter.length;
            for (int i = pos; i <= searchEnd; i++) {
                if (buf[i] == first && matches(i, delimiter)) {
                    skipped += i - pos;
                    pos = i + delimiter.length;
                    return skipped;
                }
            }
            int keep = Math.min(lim - pos, delimiter.length - 1);
            int take = lim - pos - keep;
            skipped += take;
            pos += take;
            if (skipped > max) {
                throw new IOException("MIME part larger than " + max + " bytes");
            }
            if (!ensure(lim - pos + 1)) {
                throw new EOFException("end of MIME body before the closing delimiter");
            }
        }
    }

    private boolean matches(int at, byte[] d) {
        for (int k = 1; k < d.length; k++) {
            if (buf[at + k] != d[k]) {
                return false;
            }
        }
        return true;
    }

    /** Reads exactly {@code dst.length} bytes. */
    public void readFully(byte[] dst) throws IOException {
        int off = 0;
        int buffered = Math.min(dst.length, lim - pos);
        System.arraycopy(buf, pos, dst, 0, buffered);
        pos += buffered;
        off += buffered;
        while (off < dst.length) {
            int r = in.read(dst, off, dst.length - off);
            if (r < 0) {
                throw new EOFException("end of MIME body inside the payload");
            }
            off += r;
        }
    }

    /** Reads {@code 8 * dst.length} little-endian bytes straight into {@code dst}, staged through the buffer. */
    public void readDoubles(double[] dst) throws IOException {
        int i = 0;
        while (i < dst.length) {
            int avail = (lim - pos) / Double.BYTES;
            if (avail == 0) {
                if (!ensure(Math.min(buf.length, (dst.length - i) * Double.BYTES))) {
                    if (!ensure(Double.BYTES)) {
                        throw new EOFException("end of MIME body inside the payload");
                    }
                }
                continue;
            }
            int n = Math.min(avail, dst.length - i);
            view.position(pos);
            view.asDoubleBuffer().get(dst, i, n);
            pos += n * Double.BYTES;
            i += n;
        }
    }

    /** Like {@link #readDoubles} for ints. */
    public void readInts(int[] dst) throws IOException {
        int i = 0;
        while (i < dst.length) {
            int avail = (lim - pos) / Integer.BYTES;
            if (avail == 0) {
                if (!ensure(Math.min(buf.length, (dst.length - i) * Integer.BYTES)) && !ensure(Integer.BYTES)) {
                    throw new EOFException("end of MIME body inside the payload");
                }
                continue;
            }
            int n = Math.min(avail, dst.length - i);
            view.position(pos);
            view.asIntBuffer().get(dst, i, n);
            pos += n * Integer.BYTES;
            i += n;
        }
    }

    /** Like {@link #readDoubles} for longs. */
    public void readLongs(long[] dst) throws IOException {
        int i = 0;
        while (i < dst.length) {
            int avail = (lim - pos) / Long.BYTES;
            if (avail == 0) {
                if (!ensure(Math.min(buf.length, (dst.length - i) * Long.BYTES)) && !ensure(Long.BYTES)) {
                    throw new EOFException("end of MIME body inside the payload");
                }
                continue;
            }
            int n = Math.min(avail, dst.length - i);
            view.position(pos);
            view.asLongBuffer().get(dst, i, n);
            pos += n * Long.BYTES;
            i += n;
        }
    }
}
