package org.mpfl.engine.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import org.mpfl.ir.cli.ArgumentSpec;
import org.mpfl.ir.cli.Arguments;
import org.mpfl.ir.cli.CliCommand;
import org.mpfl.ir.cli.UsageException;
import org.mpfl.protocol.tls.TlsOptions;

/**
 * {@code mpflc login --engine URL}: logs in to an engine whose users come from an OpenID Connect
 * issuer, with the device authorization grant (it prints a code to enter in a browser, on any machine:
 * works over SSH), and keeps the tokens in the login cache (owner-only; {@link TokenCache}) for
 * {@code run}, {@code status}, {@code trace} and the other client commands, which refresh them. With
 * {@code --client-id ID --client-secret-file F} it logs in as a service account (client credentials
 * grant) for automation. The issuer and the public client id come from the engine ({@code GET /api/auth}).
 */
public final class LoginCommand implements CliCommand {
    static final ArgumentSpec SPEC = ArgumentSpec.of("login", "Logs in to an engine with its OpenID Connect issuer (device code;"
            + " or a service account) and keeps the tokens for the other commands.")
            .value("--engine", "URL", "the engine (else $MPFL_ENGINE)")
            .value("--client-id", "ID", "the client to log in with (default: the one the engine names)")
            .value("--client-secret-file", "F", "a service account's secret, read from this file (client credentials)")
            .value("--login-cache", "F", "where the tokens are kept (default ~/.mpfl/login.json, mode 0600)")
            .with(TlsOptions::client);

    @Override
    public String name() {
        return "login";
    }

    @Override
    public String summary() {
        return "--engine URL [--client-id ID --client-secret-file F]  log in with the engine's OpenID Connect issuer";
    }

    @Override
    public int run(List<String> argList, PrintStream out, PrintStream err) throws Exception {
        Arguments args = SPEC.parse(argList);
        String url = EngineClient.resolveUrl(args.value("--engine"), null);
        if (url == null) {
            throw new UsageException("give --engine URL");
        }
        JsonNode auth = new EngineClient(url, null, TlsOptions.of(args)).get("/api/auth");
        if (!auth.hasNonNull("issuer")) {
            err.println("mpflc login: the engine at " + url + " has no OpenID Connect issuer; use its admin token (--token-file)");
            return 2;
        }
        String clientId = args.value("--client-id", auth.path("clientId").asText(null));
        if (clientId == null) {
            throw new UsageException("the engine names no client for logins: give --client-id ID");
        }
        OidcClient issuer = OidcClient.discover(auth.get("issuer").asText());
        Path secretFile = args.has("--client-secret-file") ? args.path("--client-secret-file") : null;
        OidcClient.Tokens t = secretFile != null
                ? issuer.clientCredentials(clientId, EngineClient.readSecretFile(secretFile))
                : issuer.device(clientId, err);
        // the engine is the judge of the token (its audience, a role, its issuer reachable from the engine): a login it
        // refuses is reported as failed, never kept, so no later command fails with a reason login did not show
        JsonNode me;
        try {
            me = new EngineClient(url, t.access(), TlsOptions.of(args)).get("/api/auth");
        } catch (EngineClient.EngineException e) {
            err.println("mpflc login: the issuer logged you in, but the engine at " + url + " refuses the token: " + e.said());
            return 1;
        }
        if (me == null || !me.hasNonNull("user")) {
            err.println("mpflc login: the issuer logged you in, but the engine at " + url + " does not say who the token proves"
                    + " (GET /api/auth answered without a user): the engine may be older than this mpflc");
            return 1;
        }
        TokenCache cache = new TokenCache(EngineOptions.loginCache(args));
        cache.save(url, issuer.tokenEndpoint(), clientId, t, secretFile);
        out.println("logged in to " + url + " as " + me.path("user").asText() + " (" + me.path("role").asText()
                + (me.path("projects").isEmpty() ? "" : ", projects " + me.path("projects")) + "); tokens in " + cache.file());
        return 0;
    }
}
