package org.mpfl.runtime.interp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code invoke} against a tiny SOAP 1.2 endpoint (a JDK HTTP server): echo, SOAP fault, bad answers, no answer. */
@Timeout(60)
class InvokeTest {
    private static final Duration LIMIT = Duration.ofSeconds(30);
    private static final Pattern TEXT = Pattern.compile("<e:text>(.*)</e:text>");
    private static HttpServer server;
    private static final List<String> requests = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/echo", ex -> {
            String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            requests.add(ex.getRequestHeaders().getFirst("Content-Type") + "\n" + body);
            Matcher m = TEXT.matcher(body);
            String word = m.find() ? m.group(1) : "?";
            answer(ex, 200, "<env:Envelope xmlns:env=\"http://www.w3.org/2003/05/soap-envelope\"><env:Body>"
                    + "<r:echoResponse xmlns:r=\"urn:test:echo\"><r:text>" + word + word + "</r:text></r:echoResponse>"
                    + "</env:Body></env:Envelope>");
        });
        server.createContext("/fault", ex -> answer(ex, 500,
                "<env:Envelope xmlns:env=\"http://www.w3.org/2003/05/soap-envelope\"><env:Body><env:Fault>"
                + "<env:Code><env:Value>env:Receiver</env:Value></env:Code>"
                + "<env:Reason><env:Text xml:lang=\"en\">the echo is out of order</env:Text></env:Reason>"
                + "</env:Fault></env:Body></env:Envelope>"));
        server.createContext("/entity", ex -> answer(ex, 200, "<!DOCTYPE x [<!ENTITY e SYSTEM \"file:///etc/passwd\">]>"
                + "<env:Envelope xmlns:env=\"http://www.w3.org/2003/05/soap-envelope\"><env:Body><r>&e;</r></env:Body></env:Envelope>"));
        server.createContext("/html", ex -> answer(ex, 404, "<html><body>not here</body></html>"));
        server.createContext("/slow", ex -> {
            try {
                Thread.sleep(30_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            answer(ex, 200, "<late/>");
        });
        server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "soap-test-server");
            t.setDaemon(true);
            return t;
        }));
        server.start();
    }

    @AfterAll
    static void stop() {
        server.stop(0);
    }

    private static void answer(HttpExchange ex, int status, String xml) throws IOException {
        byte[] bytes = xml.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/soap+xml; charset=utf-8");
        ex.sendResponseHeaders(status, bytes.length);
        ex.getResponseBody().write(bytes);
        ex.close();
    }

    private static String url(String path) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    @Test
    void echo() {
        InterpreterHarness.Result r = InterpreterHarness.run("invoke.mpfl.xml",
                Map.of("endpoint", url("/echo"), "word", "ab"), LIMIT).succeeded();
        String reply = (String) r.output("reply", 0);
        assertTrue(reply.startsWith("<r:echoResponse xmlns:r=\"urn:test:echo\"><r:text>abab</r:text>"), reply);
        String request = requests.get(requests.size() - 1);
        assertTrue(request.startsWith("application/soap+xml; charset=utf-8; action=\"echo\"\n"), request);
        assertTrue(request.contains("<soap:Body><e:echo xmlns:e=\"urn:test:echo\"><e:text>ab</e:text></e:echo></soap:Body>"),
                request);
    }

    @Test
    void soapFaultFailsTheRank() {
        RankFault f = failure("/fault");
        assertEquals("invoke echo", f.activity());
        assertTrue(f.location().startsWith("invoke.mpfl.xml:10:"), f.location());
        assertTrue(f.getMessage().startsWith("SOAP fault from " + url("/fault") + " (echo): env:Receiver: the echo is out of order"),
                f.getMessage());
    }

    @Test
    void answersWithADoctypeAreRefused() {
        RankFault f = failure("/entity");
        assertTrue(f.getMessage().contains("without a SOAP envelope"), f.getMessage());
        assertTrue(f.getMessage().contains("DOCTYPE"), f.getMessage());
    }

    @Test
    void httpErrorsWithoutEnvelope() {
        assertTrue(failure("/html").getMessage().startsWith("HTTP 404 from " + url("/html")), failure("/html").getMessage());
    }

    @Test
    void unreachableEndpoint() throws IOException {
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        RankFault f = failure0("http://127.0.0.1:" + port + "/nobody");
        assertTrue(f.getMessage().contains("failed: cannot connect"), f.getMessage());
    }

    @Test
    void noAnswerWithinTheTimeout() {
        String before = System.getProperty(SoapInvoker.TIMEOUT_PROPERTY);
        System.setProperty(SoapInvoker.TIMEOUT_PROPERTY, "300");
        try {
            long start = System.nanoTime();
            RankFault f = failure("/slow");
            assertTrue(f.getMessage().contains("no answer within 300 ms"), f.getMessage());
            // the point: the 300 ms timeout ends the call, not the server's 30 s; 10 s holds on a loaded 2-core machine
            assertTrue(System.nanoTime() - start < 10_000_000_000L, "bounded by the timeout, not by the server");
        } finally {
            if (before == null) {
                System.clearProperty(SoapInvoker.TIMEOUT_PROPERTY);
            } else {
                System.setProperty(SoapInvoker.TIMEOUT_PROPERTY, before);
            }
        }
    }

    @Test
    void endpointMustBeHttp() {
        RankFault f = failure0("ftp://example.org/x");
        assertTrue(f.getMessage().contains("is not an http or https URL"), f.getMessage());
        assertTrue(f.location().startsWith("invoke.mpfl.xml:10:"), f.location());
    }

    private static RankFault failure(String path) {
        return failure0(url(path));
    }

    private static RankFault failure0(String endpoint) {
        InterpreterHarness.Result r = InterpreterHarness.run("invoke.mpfl.xml", Map.of("endpoint", endpoint), LIMIT);
        return r.singleFault();
    }
}
