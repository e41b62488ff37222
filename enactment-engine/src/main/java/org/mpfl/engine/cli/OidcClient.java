package org.mpfl.engine.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.mpfl.engine.access.OAuthForms;
import org.mpfl.engine.json.Json;
import org.mpfl.protocol.EngineReach;

/**
 * The command line's side of OpenID Connect: the issuer's endpoints (discovery), the device
 * authorization grant (RFC 8628: works over SSH, the browser can be on another machine), refresh, and
 * client credentials for automation. Every call is bounded (10 s each; the device grant by the
 * issuer's own {@code expires_in}, at most 15 minutes).
 */
final class OidcClient {
    private static final Duration CALL = Duration.ofSeconds(10);
    private static final long DEVICE_MAX_MS = 15 * 60_000L;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(CALL).build();
    private final String tokenEndpoint;
    private final String deviceEndpoint;
    /** The issuer as its failures name it: its URL, or for a cached login the token endpoint that is all it keeps. */
    private final String where;

    /** Tokens from the issuer; {@code refresh} may be {@code null}. */
    record Tokens(String access, String refresh, long expiresAtMs) {
        @Override
        public String toString() {
            return "Tokens[expiresAtMs=" + expiresAtMs + "]"; // never the tokens themselves
        }
    }

    /**
     * The issuer could not be reached at all, in {@link EngineReach}'s words: not a refusal, so logging in again
     * does not help (where a refused refresh token does).
     */
    static final class IssuerUnreachable extends IOException {
        private static final long serialVersionUID = 1L;

        IssuerUnreachable(String message, IOException cause) {
            super(message, cause);
        }
    }

    private OidcClient(String tokenEndpoint, String deviceEndpoint, String where) {
        this.tokenEndpoint = tokenEndpoint;
        this.deviceEndpoint = deviceEndpoint;
        this.where = where;
    }

    /** The issuer's endpoints from its discovery document. */
    static OidcClient discover(String issuer) throws IOException, InterruptedException {
        String base = issuer.endsWith("/") ? issuer : issuer + "/";
        JsonNode doc = new OidcClient(null, null, issuer).call(HttpRequest.newBuilder(URI.create(base + ".well-known/openid-configuration")).GET());
        if (!doc.hasNonNull("token_endpoint")) {
            throw new IOException("the issuer " + issuer + " names no token_endpoint in its discovery document");
        }
        return new OidcClient(doc.get("token_endpoint").asText(), doc.path("device_authorization_endpoint").asText(null), issuer);
    }

    /** For a cached token whose endpoint is known. */
    static OidcClient of(String tokenEndpoint) {
        return new OidcClient(tokenEndpoint, null, tokenEndpoint);
    }

    String tokenEndpoint() {
        return tokenEndpoint;
    }

    /** The device grant: shows the code to enter at the issuer on {@code err}, then waits for the user's approval. */
    Tokens device(String clientId, PrintStream err) throws IOException, InterruptedException {
        if (deviceEndpoint == null) {
            throw new IOException("the issuer offers no device authorization endpoint; use --client-id with --client-secret-file");
        }
        JsonNode start = call(form(deviceEndpoint, Map.of("client_id", clientId, "scope", "openid")));
        String complete = start.path("verification_uri_complete").asText(null);
        err.println("To log in, open " + start.path("verification_uri").asText() + " and enter the code "
                + start.path("user_code").asText() + (complete == null ? "" : "  (or open " + complete + ")"));
        err.flush();
        long interval = Math.max(1, start.path("interval").asLong(5)) * 1000;
        long end = System.currentTimeMillis() + Math.min(DEVICE_MAX_MS, start.path("expires_in").asLong(600) * 1000);
        while (System.currentTimeMillis() < end) {
            Thread.sleep(interval);
            HttpResponse<String> r = send(form(tokenEndpoint, Map.of("grant_type", "urn:ietf:params:oauth:grant-type:device_code",
                    "device_code", start.path("device_code").asText(), "client_id", clientId)));
            JsonNode b = parse(r.body());
            if (r.statusCode() == 200) {
                return tokens(b);
            }
            String error = b.path("error").asText("");
            if (error.equals("slow_down")) {
                interval += 5000;
            } else if (!error.equals("authorization_pending")) {
                throw new IOException("the login was not completed: " + error + " " + b.path("error_description").asText(""));
            }
        }
        throw new IOException("the login was not completed in time (the code expired)");
    }

    /** New tokens for a refresh token. */
    Tokens refresh(String clientId, String refreshToken) throws IOException, InterruptedException {
        return tokens(call(form(tokenEndpoint, Map.of("grant_type", "refresh_token", "refresh_token", refreshToken,
                "client_id", clientId))));
    }

    /** A token for a service account (client credentials grant). */
    Tokens clientCredentials(String clientId, String secret) throws IOException, InterruptedException {
        return tokens(call(form(tokenEndpoint, Map.of("grant_type", "client_credentials", "client_id", clientId,
                "client_secret", secret))));
    }

    private static Tokens tokens(JsonNode b) throws IOException {
        if (!b.hasNonNull("access_token")) {
            throw new IOException("the issuer answered without an access token");
        }
        return new Tokens(b.get("access_token").asText(), b.path("refresh_token").asText(null),
                System.currentTimeMillis() + b.path("expires_in").asLong(300) * 1000);
    }

    private static HttpRequest.Builder form(String url, Map<String, String> fields) {
        String body = OAuthForms.form(fields);
        return HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body));
    }

    private JsonNode call(HttpRequest.Builder b) throws IOException, InterruptedException {
        HttpResponse<String> r = send(b);
        JsonNode body = parse(r.body());
        if (r.statusCode() / 100 != 2) {
            throw new IOException("the issuer refused " + r.request().uri() + ": " + r.statusCode() + " "
                    + body.path("error").asText("") + " " + body.path("error_description").asText(""));
        }
        return body;
    }

    private HttpResponse<String> send(HttpRequest.Builder b) throws IOException, InterruptedException {
        try {
            return http.send(b.timeout(CALL).header("Accept", "application/json").build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IssuerUnreachable(EngineReach.unreachable(e, "issuer", where), e);
        }
    }

    private static JsonNode parse(String text) {
        try {
            return text == null || text.isBlank() ? Json.MAPPER.createObjectNode() : Json.MAPPER.readTree(text);
        } catch (IOException e) {
            return Json.MAPPER.createObjectNode();
        }
    }
}
