package org.mpfl.runtime.transport.soap;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.mpfl.protocol.relay.RelayDialer;
import org.mpfl.protocol.tls.TlsSettings;

/**
 * One persistent HTTP/1.1 client connection with its own reusable write and read buffers.
 *
 * <p>Why not Axis2's {@code ServiceClient} or a general HTTP client: a store is one small request and
 * an empty 202 answer, and per-call cost (options, handler chain, client execution chain, allocation)
 * is what dominated the round trip of small messages. This speaks plain HTTP/1.1 with
 * {@code Content-Length} requests and understands {@code Content-Length}, chunked and
 * close-delimited responses; the SOAP/MTOM content is produced by {@link StoreMessageWriter}.
 * Not thread-safe: a connection is used by one caller at a time (see {@link HttpConnectionPool}).
 */
final class HttpConnection implements Closeable {
    /** Largest response body read (faults, status answers); a store answer is empty. */
    static final int MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

    private static final int WRITE_BUFFER = 256 * 1024;

    private final String hostPort;
    /** Where the write buffer goes: the socket channel itself, or the TLS socket's stream. */
    private final WritableByteChannel channel;
    private final Socket socket;
    private final InputStream in;
    /**
     * Outgoing bytes are staged in a direct buffer and written with the channel: array elements
     * are converted once into it and the kernel copies from it, with no extra copy through a
     * stream's temporary native buffer.
     */
    private final ByteBuffer wbuf = ByteBuffer.allocateDirect(WRITE_BUFFER).order(ByteOrder.LITTLE_ENDIAN);
    private final byte[] rbuf = new byte[8 * 1024];
    private int rpos;
    private int rlim;
    private boolean reusable = true;
    private long lastUsedNanos = System.nanoTime();

    /**
     * Connects; with {@code tls} the connection is TLS (handshake done here, bounded by the read
     * limit) to a server whose certificate the TLS settings' CA signed for {@code host}.
     */
    HttpConnection(String host, int port, int connectTimeoutMs, int readTimeoutMs, TlsSettings tls) throws IOException {
        this.hostPort = host + ":" + port;
        // direct, or spliced through a relay when this host reaches that address only so (RelayDialer)
        SocketChannel ch = RelayDialer.shared().connect(host, port, connectTimeoutMs);
        Socket s = ch.socket();
        try {
            s.setTcpNoDelay(true);
            s.setKeepAlive(true);
            // the socket adaptor's stream honours SO_TIMEOUT on a blocking channel: reads stay bounded
            s.setSoTimeout(readTimeoutMs);
            if (tls != null) {
                s = tls.clientSocket(s, host, port);
            }
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
        this.channel = tls == null ? ch : Channels.newChannel(s.getOutputStream());
        this.socket = s;
        this.in = s.getInputStream();
    }

    String hostPort() {
        return hostPort;
    }

    boolean reusable() {
        return reusable && !socket.isClosed();
    }

    long lastUsedNanos() {
        return lastUsedNanos;
    }

    // ------------------------------------------------------------------ writing

    void writeAscii(String s) throws IOException {
        int n = s.length();
        for (int i = 0; i < n; i++) {
            if (!wbuf.hasRemaining()) {
                flushBuffer();
            }
            wbuf.put((byte) s.charAt(i));
        }
    }

    void write(byte[] b) throws IOException {
        write(b, 0, b.length);
    }

    void write(byte[] b, int off, int len) throws IOException {
        while (len > 0) {
            if (!wbuf.hasRemaining()) {
                flushBuffer();
            }
            int n = Math.min(len, wbuf.remaining());
            wbuf.put(b, off, n);
            off += n;
            len -= n;
        }
    }

    /** Writes the elements as little-endian raw bytes, staged through the write buffer (no full-size copy). */
    void writeDoubles(double[] a) throws IOException {
        int i = 0;
        while (i < a.length) {
            int room = wbuf.remaining() / Double.BYTES;
            if (room == 0) {
                flushBuffer();
                continue;
            }
            int n = Math.min(room, a.length - i);
            wbuf.asDoubleBuffer().put(a, i, n);
            wbuf.position(wbuf.position() + n * Double.BYTES);
            i += n;
        }
    }

    void writeInts(int[] a) throws IOException {
        int i = 0;
        while (i < a.length) {
            int room = wbuf.remaining() / Integer.BYTES;
            if (room == 0) {
                flushBuffer();
                continue;
            }
            int n = Math.min(room, a.length - i);
            wbuf.asIntBuffer().put(a, i, n);
            wbuf.position(wbuf.position() + n * Integer.BYTES);
            i += n;
        }
    }

    void writeLongs(long[] a) throws IOException {
        int i = 0;
        while (i < a.length) {
            int room = wbuf.remaining() / Long.BYTES;
            if (room == 0) {
                flushBuffer();
                continue;
            }
            int n = Math.min(room, a.length - i);
            wbuf.asLongBuffer().put(a, i, n);
            wbuf.position(wbuf.position() + n * Long.BYTES);
            i += n;
        }
    }

    void flush() throws IOException {
        flushBuffer();
    }

    private void flushBuffer() throws IOException {
        wbuf.flip();
        while (wbuf.hasRemaining()) {
            channel.write(wbuf);
        }
        wbuf.clear();
    }

    // ------------------------------------------------------------------ reading

    /** A parsed HTTP response. */
    record Response(int status, String contentType, byte[] body) {
        String bodyText() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    /**
     * Reads one response. Throws {@link NoResponseException} when the server closed the connection
     * before sending a single byte (a stale keep-alive connection: the request was not processed).
     */
    Response readResponse() throws IOException {
        String statusLine;
        try {
            statusLine = readLine();
        } catch (EOFException e) {
            reusable = false;
            throw new NoResponseException("connection closed by " + hostPort + " before any response");
        }
        // "HTTP/1.1 202 Accepted"
        int sp = statusLine.indexOf(' ');
        if (!statusLine.startsWith("HTTP/1.") || sp < 0 || statusLine.length() < sp + 4) {
            reusable = false;
            throw new IOException("bad HTTP status line from " + hostPort + ": " + statusLine);
        }
        int status = Integer.parseInt(statusLine.substring(sp + 1, sp + 4));
        long contentLength = -1;
        boolean chunked = false;
        String contentType = null;
        if (statusLine.startsWith("HTTP/1.0")) {
            reusable = false;
        }
        for (;;) {
            String line = readLine();
            if (line.isEmpty()) {
                break;
            }
            int colon = line.indexOf(':');
            if (colon <= 0) {
                continue;
            }
            String name = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String value = line.substring(colon + 1).trim();
            switch (name) {
                case "content-length" -> contentLength = Long.parseLong(value);
                case "transfer-encoding" -> chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
                case "content-type" -> contentType = value;
                case "connection" -> {
                    if (value.equalsIgnoreCase("close")) {
                        reusable = false;
                    }
                }
                default -> { }
            }
        }
        byte[] body;
        if (status == 204 || status == 304 || (status >= 100 && status < 200)) {
            body = new byte[0];
        } else if (chunked) {
            body = readChunked();
        } else if (contentLength >= 0) {
            if (contentLength > MAX_RESPONSE_BYTES) {
                reusable = false;
                throw new IOException("response from " + hostPort + " too large: " + contentLength + " bytes");
            }
            body = new byte[(int) contentLength];
            readFully(body, 0, body.length);
        } else {
            body = readToEof();
            reusable = false;
        }
        lastUsedNanos = System.nanoTime();
        return new Response(status, contentType, body);
    }

    private byte[] readChunked() throws IOException {
        java.io.ByteArrayOutputStream acc = new java.io.ByteArrayOutputStream();
        for (;;) {
            String sizeLine = readLine();
            int semi = sizeLine.indexOf(';');
            int size = Integer.parseInt((semi >= 0 ? sizeLine.substring(0, semi) : sizeLine).trim(), 16);
            if (size == 0) {
                // trailers until the empty line
                while (!readLine().isEmpty()) {
                    // ignore trailer fields
                }
                return acc.toByteArray();
            }
            if (acc.size() + size > MAX_RESPONSE_BYTES) {
                reusable = false;
                throw new IOException("response from " + hostPort + " too large");
            }
            byte[] chunk = new byte[size];
            readFully(chunk, 0, size);
            acc.write(chunk, 0, size);
            readLine(); // CRLF after the chunk
        }
    }

    private byte[] readToEof() throws IOException {
        java.io.ByteArrayOutputStream acc = new java.io.ByteArrayOutputStream();
        acc.write(rbuf, rpos, rlim - rpos);
        rpos = rlim;
        byte[] tmp = new byte[8192];
        int n;
        while ((n = in.read(tmp)) >= 0) {
            acc.write(tmp, 0, n);
            if (acc.size() > MAX_RESPONSE_BYTES) {
                throw new IOException("response from " + hostPort + " too large");
            }
        }
        return acc.toByteArray();
    }

    private void readFully(byte[] dst, int off, int len) throws IOException {
        int buffered = Math.min(len, rlim - rpos);
        System.arraycopy(rbuf, rpos, dst, off, buffered);
        rpos += buffered;
        off += buffered;
        len -= buffered;
        while (len > 0) {
            int n = in.read(dst, off, len);
            if (n < 0) {
                reusable = false;
                throw new EOFException("connection closed by " + hostPort + " in a response body");
            }
            off += n;
            len -= n;
        }
    }

    private String readLine() throws IOException {
        StringBuilder sb = null;
        for (;;) {
            for (int i = rpos; i < rlim; i++) {
                if (rbuf[i] == '\n') {
                    int end = (i > rpos && rbuf[i - 1] == '\r') ? i - 1 : i;
                    String part = new String(rbuf, rpos, end - rpos, StandardCharsets.ISO_8859_1);
                    rpos = i + 1;
                    if (sb == null) {
                        return part;
                    }
                    sb.append(part);
                    // a CR at the end of the previous buffer belongs to this CRLF
                    int len = sb.length();
                    if (len > 0 && sb.charAt(len - 1) == '\r') {
                        sb.setLength(len - 1);
                    }
                    return sb.toString();
                }
            }
            if (sb == null) {
                sb = new StringBuilder();
            }
            sb.append(new String(rbuf, rpos, rlim - rpos, StandardCharsets.ISO_8859_1));
            if (sb.length() > 64 * 1024) {
                reusable = false;
                throw new IOException("header line from " + hostPort + " too long");
            }
            rpos = 0;
            rlim = 0;
            int n = in.read(rbuf, 0, rbuf.length);
            if (n < 0) {
                reusable = false;
                throw new EOFException("connection closed by " + hostPort);
            }
            rlim = n;
        }
    }

    void markBroken() {
        reusable = false;
    }

    @Override
    public void close() {
        reusable = false;
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing: nothing left to do
        }
    }

    /** The server closed the connection before answering: the request was not processed, a retry is safe. */
    static final class NoResponseException extends IOException {
        private static final long serialVersionUID = 1L;

        NoResponseException(String message) {
            super(message);
        }
    }
}
