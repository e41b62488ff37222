package org.mpfl.protocol;

import java.net.ConnectException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpConnectTimeoutException;
import javax.net.ssl.SSLException;
import org.mpfl.ir.cli.UsageException;

/**
 * Why an engine could not be reached, in words every client of one shares (mpflc's commands, a service host):
 * the JDK names the failure ({@code ConnectException}, {@code PKIX path building failed}), not the likely
 * mistake behind it, so a hint says what to do: an untrusted certificate wants {@code --tls-ca}, a refused
 * connection an engine that runs there, an {@code http://} URL of a TLS engine its {@code https://} URL.
 */
public final class EngineReach {
    private EngineReach() {
    }

    /**
     * {@code url} if it is an engine's base URL ({@code http(s)://HOST[:PORT][/PATH]}), else a usage error naming where
     * it came from ({@code --engine}, {@code $MPFL_ENGINE}, a file): a mistyped {@code --engine localhost:8080} would
     * otherwise fail in the HTTP client with words about "URI schemes" and the request's path, which say neither which
     * option is wrong nor what it should look like. Every command that takes an engine's URL (the client commands,
     * {@code mpflc host}, {@code relay}, {@code slurm}) checks it here, so that all of them refuse the same URLs.
     */
    public static String checkedUrl(String url, String source) throws UsageException {
        URI u;
        try {
            u = new URI(url);
        } catch (URISyntaxException e) {
            u = null;
        }
        boolean http = u != null && u.getScheme() != null
                && (u.getScheme().equalsIgnoreCase("http") || u.getScheme().equalsIgnoreCase("https"));
        if (!http || u.getHost() == null || u.getPort() > 65535 || u.getRawQuery() != null || u.getRawFragment() != null) {
            throw new UsageException(source + " must be the engine's URL, http://HOST:PORT or https://HOST:PORT (e.g."
                    + " http://127.0.0.1:8080), got '" + url + "'");
        }
        return url;
    }

    /** {@code "cannot reach the engine at URL: what failed (what to do)"}. */
    public static String unreachable(Throwable failure, String engineUrl) {
        return unreachable(failure, "engine", engineUrl);
    }

    /**
     * {@code "cannot reach the PARTY at URL: what failed (what to do)"}, for another server a client of the engine
     * needs in the same words (the OpenID Connect {@code issuer} of {@code mpflc login}).
     */
    public static String unreachable(Throwable failure, String party, String url) {
        return "cannot reach the " + party + " at " + url + ": " + said(failure) + hint(failure, party, url);
    }

    /** The failure in the JDK's words: the first message along its causes, else what kind of failure it is. */
    static String said(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t.getMessage() != null && !t.getMessage().isBlank()) {
                return t.getMessage();
            }
        }
        return failure instanceof ConnectException ? "connection refused" : failure.getClass().getSimpleName();
    }

    /** What to do about {@code failure}, as {@code " (…)"} to append, or {@code ""} when the JDK's words are all there is. */
    static String hint(Throwable failure, String engineUrl) {
        return hint(failure, "engine", engineUrl);
    }

    private static String hint(Throwable failure, String party, String url) {
        boolean https = url.regionMatches(true, 0, "https:", 0, 6);
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SSLException) {
                // --tls-ca is the engine's CA; other servers are checked against the JDK's CAs
                return https ? " (the " + party + "'s certificate is not trusted here" + (party.equals("engine")
                        ? ": give the CA that signed it with --tls-ca)" : " by this Java's CAs)")
                        : " (the " + party + " does not speak TLS at this http:// URL, or this is not its URL)";
            }
            if (t instanceof ConnectException) {
                return " (nothing listens there: is the " + party + " running, and is this its URL and port?)";
            }
            if (t instanceof HttpConnectTimeoutException) {
                return " (no answer to the connection: a firewall in between, or not the " + party + "'s address?)";
            }
            if (!https && t.getMessage() != null && t.getMessage().contains("header parser received no bytes")) {
                return " (the " + party + " may serve https: give its https:// URL)";
            }
        }
        return "";
    }

    /**
     * The engine's own words in an error answer ({@code {"error": "…"}}), for a host's or relay's one-line message
     * instead of the raw JSON; {@code null} when the body is no such answer (a proxy's page, nothing).
     */
    public static String errorOf(String body) {
        if (body == null || !body.strip().startsWith("{")) {
            return null;
        }
        try {
            com.fasterxml.jackson.databind.JsonNode error = RunMessages.JSON.readTree(body).path("error");
            return error.isTextual() && !error.asText().isBlank() ? error.asText().strip() : null;
        } catch (java.io.IOException e) {
            return null;
        }
    }
}
