package org.mpfl.testing.attack;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.mpfl.protocol.MpiwsNames;
import org.mpfl.testing.Http;

/**
 * A SOAP request from a caller without any credential whose one element's text never ends — {@code <m:domainId>aaaa…},
 * chunked — for the tests of the bound on a body read before a credential ({@code UnprovenBodyBoundTest} on
 * {@code mpflc host}, {@code TomcatHostTest} in Tomcat).
 */
public final class EndlessElement {
    private EndlessElement() {
    }

    /** How much a test pushes: a server that reads it all (or never closes) has taken every byte of it. */
    public static final long PUSHED = 96L << 20;

    /**
     * Below this, the server cut the element off: what it read before it closed (1 MiB and Tomcat's 2 MiB swallow) plus
     * what the sockets held meanwhile — counted as pushed though never read: the client's send buffer (tcp_wmem, at most
     * 4 MiB here) and the server's receive buffer, which loopback autotuning grows while the server reads (tcp_rmem, at
     * most 32 MiB here). CI saw 8 MiB passed at Tomcat with a 48 MiB push.
     */
    public static final long CUT_OFF = 64L << 20;

    /**
     * Sends operation {@code op}'s request to {@code url} (with its SOAP action in the content type, or without) and
     * pushes the element's text until {@code max} bytes, the server closing the connection, or 120 s of it neither
     * reading nor closing; the text is pushed from a thread of its own, so that a server that stops reading cannot block
     * the test. Returns the bytes of text pushed.
     */
    public static long push(URI url, String op, boolean withAction, long max) throws IOException, InterruptedException {
        String head = "POST " + url.getPath() + " HTTP/1.1\r\nHost: " + url.getHost() + ":" + url.getPort()
                + "\r\nContent-Type: application/soap+xml; charset=UTF-8"
                + (withAction ? "; action=\"" + MpiwsNames.action(op) + "\"" : "") + "\r\nTransfer-Encoding: chunked\r\n\r\n";
        String start = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><s:Envelope xmlns:s=\"" + MpiwsNames.SOAP12_NS
                + "\"><s:Body><m:" + op + " xmlns:m=\"" + MpiwsNames.NS + "\"><m:domainId>";
        AtomicLong pushed = new AtomicLong();
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(url.getHost(), url.getPort()), 10_000);
            OutputStream out = s.getOutputStream();
            out.write(head.getBytes(StandardCharsets.US_ASCII));
            out.write(Http.chunk(start.getBytes(StandardCharsets.UTF_8)));
            byte[] text = new byte[64 * 1024];
            Arrays.fill(text, (byte) 'a');
            byte[] chunk = Http.chunk(text);
            CompletableFuture<Void> pushing = CompletableFuture.runAsync(() -> {
                try {
                    while (pushed.get() < max) {
                        out.write(chunk);
                        pushed.addAndGet(text.length);
                    }
                } catch (IOException closedByTheServer) {
                    // what must happen: the server stopped reading and closed the connection
                }
            });
            try {
                pushing.get(120, TimeUnit.SECONDS);
            } catch (TimeoutException | ExecutionException stuck) {
                // neither read nor closed: judged by what was pushed
            }
        }
        return pushed.get();
    }
}
