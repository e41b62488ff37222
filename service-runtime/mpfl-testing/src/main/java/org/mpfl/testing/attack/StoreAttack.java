package org.mpfl.testing.attack;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import org.mpfl.protocol.MpiwsNames;

/**
 * A {@code store} as an attacker sends it, over a raw socket: an MTOM request whose header announces
 * a payload length, then the payload pushed as fast as the host takes it; for the admission attack
 * tests (one machine and the multi-host lab), with the resident-memory reading they check.
 */
public final class StoreAttack {
    private StoreAttack() {
    }

    /** The resident memory ({@code VmRSS}, kB) of a process of this machine, from {@code /proc/PID/status}. */
    public static long residentKb(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        throw new IllegalStateException("no VmRSS for " + pid);
    }

    /**
     * Sends a store announcing {@code length} payload bytes over raw HTTP, pushes up to 4 MB of the
     * payload from another thread, and returns the answer's head and body; asserts that the host
     * closes the connection (or answers) within 10 s.
     */
    public static String send(String url, String domainId, byte[] proof, long length) throws Exception {
        return send(url, domainId, proof, length, 64);
    }

    /**
     * The same, pushing at most {@code chunks} × 64 kB of the payload (64: 4 MB, enough for the
     * host to read the whole header part).
     */
    public static String send(String url, String domainId, byte[] proof, long length, int chunks) throws Exception {
        URI u = URI.create(url);
        String boundary = "attack";
        String root = "<?xml version=\"1.0\"?><s:Envelope xmlns:s=\"" + MpiwsNames.SOAP12_NS + "\"><s:Body>"
                + "<m:store xmlns:m=\"" + MpiwsNames.NS + "\"><m:domainId>" + domainId + "</m:domainId>"
                + "<m:context>0</m:context><m:from>0</m:from><m:to>1</m:to><m:tag>0</m:tag><m:seq>0</m:seq>"
                + "<m:kind>DATA</m:kind><m:proof>" + Base64.getEncoder().encodeToString(proof) + "</m:proof>"
                + "<m:type>BYTES</m:type><m:length>" + length + "</m:length><m:payload><xop:Include xmlns:xop=\""
                + MpiwsNames.XOP_NS + "\" href=\"cid:p\"/></m:payload></m:store></s:Body></s:Envelope>";
        String head = "--" + boundary + "\r\nContent-Type: application/xop+xml; charset=UTF-8; type=\"application/soap+xml\""
                + "\r\nContent-ID: <root>\r\n\r\n" + root + "\r\n--" + boundary
                + "\r\nContent-Type: application/octet-stream\r\nContent-ID: <p>\r\n\r\n";
        long contentLength = head.length() + length + ("\r\n--" + boundary + "--\r\n").length();
        String request = "POST " + u.getRawPath() + " HTTP/1.1\r\nHost: " + u.getHost() + ":" + u.getPort()
                + "\r\nContent-Type: multipart/related; boundary=\"" + boundary + "\"; type=\"application/xop+xml\"; "
                + "start=\"<root>\"; start-info=\"application/soap+xml\"; action=\"" + MpiwsNames.action(MpiwsNames.OP_STORE)
                + "\"\r\nContent-Length: " + contentLength + "\r\n\r\n" + head;
        return exchange(u, request.getBytes(StandardCharsets.UTF_8), chunks);
    }

    /**
     * Sends {@code request} (an HTTP request head and the start of its body) over a raw socket, pushes
     * {@code chunks} × 64 kB more of the body from another thread, and returns the answer's head and
     * body; asserts that the host answers or closes within 10 s (i.e. without waiting for the rest of
     * a body it should not read).
     */
    public static String exchange(URI u, byte[] request, int chunks) throws Exception {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(u.getHost(), u.getPort()), 5000);
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(request);
            out.flush();
            Thread pusher = new Thread(() -> {
                byte[] chunk = new byte[64 * 1024];
                try {
                    for (int i = 0; i < chunks; i++) {
                        out.write(chunk);
                    }
                } catch (IOException closedByTheHost) {
                    // expected: the host stopped reading
                }
            });
            pusher.setDaemon(true);
            pusher.start();
            long t0 = System.nanoTime();
            byte[] answer;
            try {
                answer = s.getInputStream().readAllBytes(); // until the host closes
            } catch (SocketTimeoutException e) {
                throw new AssertionError("the host neither answered nor closed within 10 s");
            } catch (IOException reset) {
                answer = new byte[0];
            }
            assertTrue(System.nanoTime() - t0 < 10_000_000_000L);
            return new String(answer, StandardCharsets.UTF_8);
        }
    }
}
