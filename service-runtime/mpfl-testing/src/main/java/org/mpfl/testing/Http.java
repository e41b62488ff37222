package org.mpfl.testing;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.mpfl.protocol.RankEventPost;

/**
 * A tiny JSON-over-HTTP client for tests (the engine's REST API, the lab's engines). Bounded: 5 s to
 * connect, 10 s per request. The calls a host makes with its own credential are the engine tests'
 * ({@code org.mpfl.engine.HostCalls}).
 */
public final class Http {
    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final ObjectMapper JSON = new ObjectMapper();

    private Http() {
    }

    /** Status, body and headers of an answer. */
    public record Answer(int status, String body, java.net.http.HttpHeaders headers) {
        public JsonNode json() throws IOException {
            return JSON.readTree(body);
        }

        /** The first value of response header {@code name}, if the answer has it. */
        public java.util.Optional<String> header(String name) {
            return headers.firstValue(name);
        }
    }

    /**
     * POSTs rank events to {@code url} as a host does: the JSON body with the headers of
     * {@link RankEventPost} made with {@code domainToken} for {@code domainId} (a wrong token or domain
     * makes a forgery). No {@code Authorization}: ranks carry no engine credential.
     */
    public static Answer postRankEvents(String url, String domainToken, String domainId, Object events)
            throws IOException, InterruptedException {
        return PLAIN.postRankEvents(url, domainToken, domainId, events);
    }

    /**
     * One chunk of a chunked HTTP/1.1 body ({@code Transfer-Encoding: chunked}): its size in hex, the data, CRLF. How
     * an attack test sends a body that never ends.
     */
    public static byte[] chunk(byte[] data) {
        byte[] size = (Integer.toHexString(data.length) + "\r\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        byte[] out = new byte[size.length + data.length + 2];
        System.arraycopy(size, 0, out, 0, size.length);
        System.arraycopy(data, 0, out, size.length, data.length);
        out[out.length - 2] = '\r';
        out[out.length - 1] = '\n';
        return out;
    }

    /**
     * Sends only the head of a POST to {@code baseUrl + path} announcing {@code announcedLength} body bytes,
     * none of which follow, and returns the answer's status line ({@code HTTP/1.1 401 …}): how a test shows
     * that a request is refused before its body is read (waiting for the body would end only with the read
     * time-out, {@code timeoutMs}). {@code headers} go as given (none of their own: no content type).
     */
    public static String postHeadOnly(String baseUrl, String path, java.util.Map<String, String> headers, long announcedLength,
                                      int timeoutMs) throws IOException {
        return postHeadOnlyAnswer(baseUrl, path, headers, announcedLength, timeoutMs).get(0);
    }

    /**
     * As {@link #postHeadOnly}, returning the answer's whole head: the status line, then each header line
     * ({@code Name: value}) as received.
     */
    public static List<String> postHeadOnlyAnswer(String baseUrl, String path, java.util.Map<String, String> headers,
                                                  long announcedLength, int timeoutMs) throws IOException {
        URI u = URI.create(baseUrl);
        try (java.net.Socket s = new java.net.Socket(u.getHost(), u.getPort())) {
            s.setSoTimeout(timeoutMs);
            StringBuilder head = new StringBuilder("POST " + path + " HTTP/1.1\r\nHost: " + u.getHost() + "\r\n");
            headers.forEach((k, v) -> head.append(k).append(": ").append(v).append("\r\n"));
            head.append("Content-Length: ").append(announcedLength).append("\r\n\r\n");
            s.getOutputStream().write(head.toString().getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            java.io.InputStream in = s.getInputStream();
            List<String> lines = new java.util.ArrayList<>();
            StringBuilder line = new StringBuilder();
            for (int c = in.read(); c >= 0; c = in.read()) {
                if (c != '\n') {
                    line.append((char) c);
                    continue;
                }
                if (line.toString().isBlank()) {
                    break; // the end of the head
                }
                lines.add(line.toString().strip());
                line.setLength(0);
            }
            if (!line.toString().isBlank()) {
                lines.add(line.toString().strip()); // cut off
            }
            return lines.isEmpty() ? List.of("") : lines;
        }
    }

    /** The plain client (the JDK's public CAs for https). */
    public static final Client PLAIN = new Client(CLIENT);

    public static Answer get(String url) throws IOException, InterruptedException {
        return PLAIN.get(url);
    }

    public static Answer post(String url, String token, Object body) throws IOException, InterruptedException {
        return PLAIN.post(url, token, body);
    }

    /** Any method, with an {@code Authorization} header value as given ({@code null}: none) and a JSON body ({@code null}: none). */
    public static Answer send(String method, String url, String authorization, Object body) throws IOException, InterruptedException {
        return PLAIN.send(method, url, authorization, body);
    }

    /**
     * The same calls through a client of one's own, e.g. one that trusts a lab CA
     * ({@code new Http.Client(tls.httpClient().build())}).
     */
    public static final class Client {
        private final HttpClient client;

        public Client(HttpClient client) {
            this.client = client;
        }

        public Answer get(String url) throws IOException, InterruptedException {
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            return new Answer(r.statusCode(), r.body(), r.headers());
        }

        public Answer post(String url, String token, Object body) throws IOException, InterruptedException {
            return send("POST", url, token == null ? null : "Bearer " + token, body);
        }

        /** Any method, with an {@code Authorization} header value as given ({@code null}: none) and a JSON body ({@code null}: none). */
        public Answer send(String method, String url, String authorization, Object body) throws IOException, InterruptedException {
            return send(method, url, authorization, body, Duration.ofSeconds(10));
        }

        /** {@link #send(String, String, String, Object)} with a request bound of its own instead of 10 s. */
        public Answer send(String method, String url, String authorization, Object body, Duration timeout)
                throws IOException, InterruptedException {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(timeout)
                    .header("Content-Type", "application/json")
                    .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                            : HttpRequest.BodyPublishers.ofString(body instanceof String s ? s : write(body)));
            if (authorization != null) {
                b.header("Authorization", authorization);
            }
            return answer(b);
        }

        /**
         * {@link #send(String, String, String, Object, Duration)}, sent again while the server closes the connection
         * without an answer (no status line: "header parser received no bytes", a reset), until {@code bound}: what a
         * fixture's set-up request does against a server just started or loaded, whose keep-alive connection may close
         * just as the request goes out. Only for requests that may be repeated (a second credential issued for a host
         * is harmless). A request that timed out ({@code perRequest}) or any answer, whatever its status, is not retried.
         *
         * @throws IOException the last failure, once {@code bound} passed without an answer
         */
        public Answer sendUntilAnswered(String method, String url, String authorization, Object body, Duration perRequest,
                                        Duration bound) throws IOException, InterruptedException {
            long deadline = System.nanoTime() + bound.toNanos();
            long pauseMs = 10;
            for (;;) {
                try {
                    return send(method, url, authorization, body, perRequest);
                } catch (java.net.http.HttpTimeoutException e) {
                    throw e;
                } catch (IOException e) {
                    if (System.nanoTime() - deadline > 0) {
                        throw new IOException("no answer within " + bound.toSeconds() + " s from " + method + " " + url + ": "
                                + e.getMessage(), e);
                    }
                }
                Thread.sleep(pauseMs);
                pauseMs = Math.min(200, pauseMs * 2);
            }
        }

        /** See {@link Http#postRankEvents}. */
        public Answer postRankEvents(String url, String domainToken, String domainId, Object events)
                throws IOException, InterruptedException {
            byte[] body = (events instanceof String s ? s : write(events)).getBytes(StandardCharsets.UTF_8);
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofByteArray(body));
            RankEventPost.headers(domainToken, domainId, body).forEach(b::header);
            return answer(b);
        }

        private Answer answer(HttpRequest.Builder request) throws IOException, InterruptedException {
            HttpResponse<String> r = client.send(request.build(), HttpResponse.BodyHandlers.ofString());
            return new Answer(r.statusCode(), r.body(), r.headers());
        }
    }

    private static String write(Object body) {
        try {
            return JSON.writeValueAsString(body);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot write a request body as JSON: " + e.getMessage(), e);
        }
    }

    /**
     * A test server's answer: {@code status} with {@code body} as UTF-8 (an empty body is sent as none, with no
     * length, as a 204 must be), then the exchange closed. Headers set on {@code ex} before go with it.
     */
    public static void answer(com.sun.net.httpserver.HttpExchange ex, int status, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        ex.sendResponseHeaders(status, b.length == 0 ? -1 : b.length);
        if (b.length > 0) {
            ex.getResponseBody().write(b);
        }
        ex.close();
    }
}
