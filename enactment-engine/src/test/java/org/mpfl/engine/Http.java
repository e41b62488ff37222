package org.mpfl.engine;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.mpfl.engine.json.Json;
import org.mpfl.engine.registry.HostCredentials;
import org.mpfl.protocol.HostCredential;

/** A tiny JSON-over-HTTP client for tests. */
public final class Http {
    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private Http() {
    }

    /** Status and body of an answer. */
    public record Answer(int status, String body) {
        public JsonNode json() throws IOException {
            return Json.MAPPER.readTree(body);
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
            return new Answer(r.statusCode(), r.body());
        }

        public Answer post(String url, String token, Object body) throws IOException, InterruptedException {
            return send("POST", url, token == null ? null : "Bearer " + token, body);
        }

        /** Any method, with an {@code Authorization} header value as given ({@code null}: none) and a JSON body ({@code null}: none). */
        public Answer send(String method, String url, String authorization, Object body) throws IOException, InterruptedException {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
                    .header("Content-Type", "application/json")
                    .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                            : HttpRequest.BodyPublishers.ofString(body instanceof String s ? s : Json.write(body)));
            if (authorization != null) {
                b.header("Authorization", authorization);
            }
            HttpResponse<String> r = client.send(b.build(), HttpResponse.BodyHandlers.ofString());
            return new Answer(r.statusCode(), r.body());
        }
    }

    /** Credentials tests issued, by engine URL and host id (the engine shows a secret only once). */
    private static final Map<String, HostCredential> CREDENTIALS = new ConcurrentHashMap<>();

    /** The credential of {@code hostId} at this engine, issued on first use. */
    public static HostCredential credential(Engine engine, String hostId) {
        return CREDENTIALS.computeIfAbsent(engine.url() + " " + hostId, k -> {
            try {
                return engine.issueHostCredential(hostId);
            } catch (HostCredentials.HostIdTakenException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /** Announces a host (a map with {@code hostId}) as that host would: with its own credential. */
    public static Answer announce(Engine engine, Map<String, Object> host) throws IOException, InterruptedException {
        return send("POST", engine.url() + "/api/registry/hosts", credential(engine, (String) host.get("hostId")).authorization(), host);
    }

    /** A heartbeat of {@code hostId}, with its own credential. */
    public static Answer heartbeat(Engine engine, String hostId) throws IOException, InterruptedException {
        return send("POST", engine.url() + "/api/registry/hosts/" + hostId + "/heartbeat",
                credential(engine, hostId).authorization(), "");
    }
}
