package org.mpfl.engine.cli;

import java.io.IOException;
import org.mpfl.ir.cli.ArgumentSpec;
import org.mpfl.ir.cli.Arguments;
import org.mpfl.ir.cli.UsageException;
import org.mpfl.protocol.tls.TlsOptions;

/**
 * The options the engine's commands share, declared once: how a client command reaches the engine
 * ({@code --engine}, {@code --token-file}, {@code --data}, {@code --tls-ca}), with how they are read.
 */
final class EngineOptions {
    private EngineOptions() {
    }

    /** {@code --engine URL --token-file F --data DIR --tls-ca CA.pem}. */
    static ArgumentSpec client(ArgumentSpec spec) {
        return spec
                .value("--engine", "URL", "the engine (else $MPFL_ENGINE, else the last engine started with --data)")
                .value("--token-file", "F", "a file holding the engine's admin token or a user's access token (else $MPFL_ENGINE_TOKEN,"
                        + " else a login, else --data's)")
                .value("--data", "DIR", "the engine's data directory, for its URL and token (default ~/.mpfl/engine)")
                .value("--login-cache", "F", "the tokens of mpflc login (default ~/.mpfl/login.json); named, it must hold a login for the engine")
                .with(TlsOptions::client);
    }

    /** What the engine's run ids are made of ({@code RandomIds}: URL-safe base64). */
    private static final java.util.regex.Pattern RUN_ID = java.util.regex.Pattern.compile("[A-Za-z0-9_-]{1,64}");

    /**
     * The {@code RUN} argument, if it can be a run's id; else a usage error. It goes into the request's path as it is,
     * so {@code mpflc status ""} asked for the list of runs and printed an empty run, and {@code status ../registry/hosts}
     * another resource.
     */
    static String runId(Arguments a) throws UsageException {
        String id = a.positional("RUN");
        if (!RUN_ID.matcher(id).matches()) {
            throw new UsageException("RUN must be a run's id (letters, digits, '-' and '_', as mpflc runs lists them), got '"
                    + id + "'");
        }
        return id;
    }

    /** A client of the engine the options name; a usage error when none is named. */
    static EngineClient connect(Arguments a) throws IOException, UsageException {
        String url = EngineClient.resolveUrl(a.value("--engine"), a.value("--data"));
        if (url == null) {
            throw new UsageException(noEngine(a.value("--data")));
        }
        return client(a, url);
    }

    /** A client of the engine at {@code url} with the token the options give for it. */
    static EngineClient client(Arguments a, String url) throws IOException {
        EngineClient.TokenSource token = tokenSource(a, url);
        EngineClient client = EngineClient.renewing(url, token, TlsOptions.of(a));
        return token != null ? client : client.withheld(EngineClient.withheldToken(url, a.value("--data")));
    }

    /** What a client command says when no option, variable or data directory names an engine. */
    static String noEngine(String dataOption) {
        return "give --engine URL (or set $MPFL_ENGINE); " + EngineClient.dataDir(dataOption)
                + " names no engine: it does once 'mpflc up --data DIR' started one there";
    }

    /**
     * The bearer token for an engine: a login cache named with {@code --login-cache}, which must hold a
     * login for that URL; else a token named explicitly ({@code --token-file}, {@code $MPFL_ENGINE_TOKEN}:
     * the admin token, or a user's access token), else the login of {@code mpflc login} for that URL in the
     * default cache (refreshed when needed), else the admin token in the data directory
     * ({@link EngineClient#resolveToken}); {@code null} when there is none. A named cache without that login
     * is an error: falling through to the next would act as another identity (the data directory's admin
     * token) than the one the user named, a mistyped file name away.
     */
    static String token(Arguments a, String url) throws IOException {
        EngineClient.TokenSource source = tokenSource(a, url);
        return source == null ? null : source.token();
    }

    /**
     * As {@link #token}, asked again for each request: a login's access token is renewed from the login cache whenever it
     * nears its expiry (a command following a run outlives a token of minutes; with the first token alone it stopped at
     * its expiry saying to log in again, the login being fine). The login is read once here, so that a missing or
     * unrenewable one fails the command before it starts.
     */
    static EngineClient.TokenSource tokenSource(Arguments a, String url) throws IOException {
        if (a.value("--login-cache") != null && url != null) {
            if (a.value("--token-file") != null) {
                throw new IOException("give one of --login-cache F (a login) or --token-file F (a token), not both");
            }
            java.nio.file.Path cache = loginCache(a);
            String first = new TokenCache(cache).accessToken(url).orElseThrow(() -> new IOException("no login for " + url + " in " + cache
                    + (java.nio.file.Files.exists(cache) ? "" : " (no such file)") + ": run mpflc login --engine " + url
                    + " --login-cache " + cache));
            return renewed(new TokenCache(cache), url, first);
        }
        String env = org.mpfl.engine.settings.EngineSettings.ENGINE_TOKEN.raw();
        if (a.value("--token-file") == null && (env == null || env.isBlank()) && url != null) {
            TokenCache logins = new TokenCache(loginCache(a));
            java.util.Optional<String> login = logins.accessToken(url);
            if (login.isPresent()) {
                return renewed(logins, url, login.get());
            }
        }
        String fixed = EngineClient.resolveToken(a.value("--token-file"), a.value("--data"), url);
        return fixed == null ? null : () -> fixed;
    }

    /** The login's current access token for each request; {@code first} while the cache no longer holds the login. */
    private static EngineClient.TokenSource renewed(TokenCache logins, String url, String first) {
        return () -> logins.accessToken(url).orElse(first);
    }

    /** The login cache the options name. */
    static java.nio.file.Path loginCache(Arguments a) {
        return a.value("--login-cache") != null ? java.nio.file.Path.of(a.value("--login-cache")) : TokenCache.defaultFile();
    }
}
