package org.mpfl.engine.cli;

import org.mpfl.engine.settings.EngineSettings;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.mpfl.engine.Engine;
import org.mpfl.engine.json.Json;
import org.mpfl.ir.cli.UsageException;
import org.mpfl.protocol.EngineReach;
import org.mpfl.protocol.EngineRefusal;
import org.mpfl.protocol.tls.TlsSettings;

/**
 * The command line's client of the engine's REST API. Every request is bounded by a timeout; errors
 * carry the engine's own message.
 */
public final class EngineClient {
    private final HttpClient http;
    private final String url;
    private final TokenSource token;
    /** Why no token goes with the requests although the data directory holds one (another engine's), or {@code null}. */
    private String withheldToken;

    public EngineClient(String url, String token) {
        this(url, token, TlsSettings.NONE);
    }

    /**
     * A client of an engine; with an {@code https} URL the engine must present a certificate that
     * the TLS settings' CA ({@code --tls-ca}, else the JDK's public CAs) signed for the URL's host.
     */
    public EngineClient(String url, String token, TlsSettings tls) {
        this(tls, url, token == null ? null : () -> token);
    }

    /**
     * As {@link #EngineClient(String, String, TlsSettings)}, with the token asked of {@code token} for each request
     * ({@code null}: none): a login's access token lives minutes, a command that follows a run may live hours.
     */
    static EngineClient renewing(String url, TokenSource token, TlsSettings tls) {
        return new EngineClient(tls, url, token);
    }

    private EngineClient(TlsSettings tls, String url, TokenSource token) {
        this.http = tls.httpClient().connectTimeout(Duration.ofSeconds(5)).version(HttpClient.Version.HTTP_1_1).build();
        this.url = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        this.token = token;
    }

    /** The bearer token for the next request: a fixed one, or a login's, renewed when it nears its expiry. */
    @FunctionalInterface
    interface TokenSource {
        String token() throws IOException;
    }

    public String url() {
        return url;
    }

    /**
     * The engine (admin) token for the command line: the file {@code --token-file}, else
     * {@code $MPFL_ENGINE_TOKEN}, else the token file in the data directory ({@code --data}, default
     * {@code ~/.mpfl/engine}) — the default directory's only for the engine it records ({@link Engine#URL_FILE}):
     * pointed at another URL, a command would hand that engine's admin token to a party that could use it
     * ({@link #withheldToken}); {@code --data DIR} given with the URL pairs them on purpose (a tunnel, a forwarded
     * port, a proxy reach an engine under another URL). Never an option value: the command line is visible in {@code ps}.
     */
    static String resolveToken(String tokenFile, String dataDir, String engineUrl) throws IOException {
        if (tokenFile != null) {
            return readSecretFile(Path.of(tokenFile));
        }
        String env = EngineSettings.ENGINE_TOKEN.raw();
        if (env != null && !env.isBlank()) {
            return env.strip();
        }
        Path file = dataDir(dataDir).resolve(Engine.TOKEN_FILE);
        if (!Files.isRegularFile(file) || withheldToken(engineUrl, dataDir) != null) {
            return null;
        }
        return Files.readString(file, StandardCharsets.UTF_8).strip();
    }

    /**
     * Why the default data directory's token is not for {@code engineUrl} — it records another engine, or none — as the
     * words of a refusal; {@code null} when it is that engine's, when {@code --data} named the directory (the user
     * paired the two), or when there is no token to withhold.
     */
    static String withheldToken(String engineUrl, String dataDir) throws IOException {
        Path directory = dataDir(dataDir);
        if (dataDir != null || engineUrl == null || !Files.isRegularFile(directory.resolve(Engine.TOKEN_FILE))) {
            return null;
        }
        Path urlFile = directory.resolve(Engine.URL_FILE);
        String recorded = Files.isRegularFile(urlFile) ? Files.readString(urlFile, StandardCharsets.UTF_8).strip() : null;
        if (recorded != null && sameEngine(engineUrl, recorded)) {
            return null;
        }
        return "the admin token in " + directory + " is " + (recorded == null ? "of an engine whose URL it does not record"
                : "the engine's at " + recorded) + ", so it was not sent to " + engineUrl + ": give that engine's token with"
                + " --token-file F or $MPFL_ENGINE_TOKEN, or its data directory with --data DIR";
    }

    /** Whether two URLs name one engine: scheme, host and port alike, any two loopback names alike. */
    static boolean sameEngine(String a, String b) {
        try {
            URI x = URI.create(a.strip());
            URI y = URI.create(b.strip());
            if (x.getScheme() == null || y.getScheme() == null || x.getHost() == null || y.getHost() == null
                    || !x.getScheme().equalsIgnoreCase(y.getScheme()) || port(x) != port(y)) {
                return false;
            }
            return x.getHost().equalsIgnoreCase(y.getHost()) || loopback(x.getHost()) && loopback(y.getHost());
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static int port(URI u) {
        return u.getPort() != -1 ? u.getPort() : u.getScheme().equalsIgnoreCase("https") ? 443 : 80;
    }

    private static boolean loopback(String host) {
        String h = host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
        return h.equalsIgnoreCase("localhost") || h.startsWith("127.") || h.equals("::1") || h.equals("0:0:0:0:0:0:0:1");
    }

    /** Says, when the engine answers 401, that the data directory's token was withheld and why ({@link #withheldToken}). */
    EngineClient withheld(String why) {
        this.withheldToken = why;
        return this;
    }

    /**
     * A warning when a secret file of the engine's own ({@code up --token-file}, {@code --jdbc-password-file}) may be
     * read by others: warned, not refused, since the file is the operator's and the engine runs on (a host credential,
     * which the host alone uses, is refused instead).
     */
    static java.util.Optional<String> exposedSecret(Path file) {
        try {
            return org.mpfl.ir.cli.FileProblem.openToOthers(file).map(mode -> "WARNING: " + file + " may be read by others ("
                    + mode + "): a secret file should be mode 0600 (chmod 600 " + file + "; change the secret if others may have"
                    + " read it)");
        } catch (IOException | UnsupportedOperationException e) {
            // unreadable: readSecretFile says so; no POSIX modes: nothing to check
        }
        return java.util.Optional.empty();
    }

    /**
     * A secret in a file ({@code --token-file}, {@code --jdbc-password-file}): its content, stripped;
     * files rather than options because every user of the machine sees a command line.
     */
    static String readSecretFile(Path file) throws IOException {
        String t;
        try {
            t = Files.readString(file, StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            throw new IOException("cannot read the secret file " + org.mpfl.ir.cli.FileProblem.of(file, e), e);
        }
        if (t.isEmpty()) {
            throw new IOException("the secret file " + file + " is empty");
        }
        return t;
    }

    /** The engine URL: {@code --engine}, else {@code $MPFL_ENGINE}, else the URL file of the last engine started in the data dir. */
    static String resolveUrl(String option, String dataDir) throws IOException, UsageException {
        if (option != null) {
            return EngineReach.checkedUrl(option, "--engine");
        }
        String env = EngineSettings.ENGINE.raw();
        if (env != null && !env.isBlank()) {
            return EngineReach.checkedUrl(env.strip(), "$MPFL_ENGINE");
        }
        Path file = dataDir(dataDir).resolve(Engine.URL_FILE);
        return Files.isRegularFile(file) ? EngineReach.checkedUrl(Files.readString(file, StandardCharsets.UTF_8).strip(), file.toString()) : null;
    }

    static Path dataDir(String option) {
        return option != null ? Path.of(option) : Path.of(System.getProperty("user.home"), ".mpfl", "engine");
    }

    public JsonNode get(String path) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(url + path)).GET());
    }

    /** A {@code text/plain} answer as it is ({@code GET /api/runs/{id}/logs}); errors as {@link #get}'s. */
    public String getText(String path) throws IOException, InterruptedException {
        return exchange(HttpRequest.newBuilder(URI.create(url + path)).GET()).body();
    }

    public JsonNode post(String path, Object body) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(url + path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body == null ? "" : Json.write(body))));
    }

    /** {@code DELETE path}; errors as {@link #get}'s. */
    public void delete(String path) throws IOException, InterruptedException {
        exchange(HttpRequest.newBuilder(URI.create(url + path)).DELETE());
    }

    private JsonNode send(HttpRequest.Builder b) throws IOException, InterruptedException {
        HttpResponse<String> resp = exchange(b);
        return resp.body() == null || resp.body().isBlank() ? null : parse(resp.body());
    }

    /** Sends a request; an answer other than 2xx is an {@link EngineException} with the engine's message. */
    private HttpResponse<String> exchange(HttpRequest.Builder b) throws IOException, InterruptedException {
        b.timeout(Duration.ofSeconds(60));
        if (token != null) {
            b.header("Authorization", "Bearer " + token.token());
        }
        HttpRequest req = b.build();
        HttpResponse<String> resp;
        try {
            resp = http.send(req, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IOException(EngineReach.unreachable(e, url), e);
        }
        if (resp.statusCode() / 100 != 2) {
            JsonNode body = resp.body() == null || resp.body().isBlank() ? null : parse(resp.body());
            String msg = body != null && body.has("error") ? body.get("error").asText() : resp.body();
            if (resp.statusCode() == 422 && msg != null) {
                msg = paramsAsOptions(msg);
            }
            if (msg == null || msg.isBlank()) {
                msg = "HTTP " + resp.statusCode() + " without a message" + (resp.statusCode() >= 500 ? " (the engine's log says why)" : "");
            }
            throw new EngineException(resp.statusCode(), req.method() + " " + req.uri().getPath() + ": " + msg + hint(resp.statusCode(), msg),
                    msg, EngineRefusal.of(resp.statusCode(), resp.headers().firstValue(EngineRefusal.HEADER).orElse(null)).orElse(null));
        }
        return resp;
    }

    /**
     * What to do about a refusal on the command line, as {@code " (…)"}, or {@code ""}: the engine's words
     * name the REST API ({@code 'project'}), not the options. Logging in is suggested only where it helps: no
     * token was sent, or the one sent has expired; a user who is logged in but refused for another reason (no
     * role, another audience) is not sent to log in again.
     */
    private String hint(int status, String said) {
        if (status == 401 && withheldToken != null) {
            return " (" + withheldToken + ")";
        }
        if (status == 401 && token == null) {
            return " (log in with mpflc login --engine URL, or give the engine token with --token-file F, $MPFL_ENGINE_TOKEN"
                    + " or --data DIR of the engine)";
        }
        if (status == 401 && said.contains("has expired")) {
            return " (log in again with mpflc login --engine " + url + ")";
        }
        if (status == 400 && said.contains("('project')")) {
            return " (give it with --project P)";
        }
        if (status == 403 && said.startsWith("sending service archives")) {
            return " (an admin deploys the workflow into the project: mpflc deploy FILE --project P; then mpflc run NAME runs it"
                    + " with this login, without archives)";
        }
        return "";
    }

    /**
     * A compiler's diagnostics (422) in the command line's words: the engine names a run's parameter values by the
     * request's field ({@code 'params.n' (abc)}), which the command line gave from {@code --param n=abc}, as the same
     * document checked here says.
     */
    static String paramsAsOptions(String said) {
        return said.replaceAll("'params\\.([^'\\s]+)' \\(([^)\\n]*)\\)", "--param $1=$2").replaceAll("'params\\.([^'\\s]+)'", "--param $1");
    }

    private static JsonNode parse(String text) {
        try {
            return Json.MAPPER.readTree(text);
        } catch (IOException e) {
            return Json.MAPPER.getNodeFactory().textNode(text);
        }
    }

    /**
     * The engine answered with an error status — or something between the command and the engine did (a reverse
     * proxy): only {@link #mark} tells the engine's own refusal that waiting does not mend apart.
     */
    public static final class EngineException extends IOException {
        private static final long serialVersionUID = 1L;
        private final int status;
        private final String said;
        private final EngineRefusal mark;

        public EngineException(int status, String message) {
            this(status, message, message);
        }

        /** {@code said}: the engine's own words, without the request and the command line's hint. */
        public EngineException(int status, String message, String said) {
            this(status, message, said, null);
        }

        /**
         * @param said the engine's own words, without the request and the command line's hint
         * @param mark the engine's {@link EngineRefusal} mark on the answer (only with a status it goes with), or {@code null}
         */
        public EngineException(int status, String message, String said, EngineRefusal mark) {
            super(message);
            this.status = status;
            this.said = said;
            this.mark = mark;
        }

        /** The engine's mark on the refusal ({@link EngineRefusal#HEADER}); empty when the answer had none. */
        public java.util.Optional<EngineRefusal> mark() {
            return java.util.Optional.ofNullable(mark);
        }

        public int status() {
            return status;
        }

        /** The engine's own words. */
        public String said() {
            return said;
        }
    }
}
