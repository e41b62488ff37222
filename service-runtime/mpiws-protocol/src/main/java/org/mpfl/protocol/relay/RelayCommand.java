package org.mpfl.protocol.relay;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.mpfl.ir.cli.ArgumentSpec;
import org.mpfl.ir.cli.Arguments;
import org.mpfl.ir.cli.CliCommand;
import org.mpfl.ir.cli.UsageException;
import org.mpfl.protocol.EngineReach;
import org.mpfl.protocol.EngineRefusal;
import org.mpfl.protocol.HostCredential;
import org.mpfl.protocol.tls.TlsOptions;
import org.mpfl.protocol.tls.TlsSettings;

/**
 * {@code mpflc relay --credential-file F --bind ADDR --port P [--advertise NAME] [--engine URL]
 * [TLS flags]}: runs a relay ({@link RelayServer}) under the relay's own credential
 * ({@code mpflc host-token --relay --host-id NAME -o F}). It announces itself to the engine
 * ({@code POST /api/registry/relays}, listed by {@code GET /api/registry/relays}) every
 * {@link #ANNOUNCE_EVERY}, asks the engine to check each host's proof
 * ({@code POST /api/registry/relays/verify}), asks again every {@link CredentialSweep#EVERY} whether the credentials
 * its hosts registered with are still valid ({@code POST /api/registry/relays/check}: a revoked host is dropped), prints
 * one ready line
 * ({@value #READY_PREFIX}ID listening on ADDR:PORT) and serves until killed.
 */
public final class RelayCommand implements CliCommand {
    /** Prefix of the ready line. */
    public static final String READY_PREFIX = "MPFL relay ";
    static final Duration ANNOUNCE_EVERY = Duration.ofSeconds(10);
    /**
     * How long the first announcement keeps trying an engine it cannot reach: a relay started beside a
     * starting engine (a login node booting, a test lab, a service manager's parallel start) must not exit
     * because it came first. An engine that answers and refuses is not retried.
     */
    static final Duration FIRST_ANNOUNCEMENT_WITHIN = Duration.ofSeconds(60);
    private static final ObjectMapper JSON = new ObjectMapper();

    private static final ArgumentSpec SPEC = ArgumentSpec.of("relay", "Runs a relay for hosts that accept no connection from"
            + " outside their site; prints one ready line (" + READY_PREFIX + "ID listening on ADDR:PORT) and serves until killed.")
            .value("--credential-file", "F", "the relay's credential (mpflc host-token --relay --host-id NAME -o F; or $"
                    + HostCredential.ENV + ")")
            .value("--engine", "URL", "the engine (default: the credential's)")
            .value("--bind", "ADDR", "0.0.0.0", "the address to listen on")
            .value("--port", "P", "7070", "the port hosts and callers connect to")
            .value("--advertise", "HOST", "the name hosts and the engine reach this relay by (default: the bind address)")
            .with(TlsOptions::serving)
            .note("Hosts hold a connection to the relay (mpflc host --relay HOST:PORT); the relay splices connections between"
                    + " hosts of one domain and from the engine to such hosts. It reads no payload: TLS runs between the hosts.");

    @Override
    public String name() {
        return "relay";
    }

    @Override
    public String summary() {
        return "--credential-file F [--bind ADDR] [--port P]  run a relay for hosts behind NAT or a firewall";
    }

    @Override
    public int run(List<String> argList, PrintStream out, PrintStream err) throws Exception {
        Arguments args = SPEC.parse(argList);
        String given = args.has("--engine") ? EngineReach.checkedUrl(args.value("--engine"), "--engine") : null;
        Path file = args.path("--credential-file");
        String env = System.getenv(HostCredential.ENV);
        HostCredential credential;
        try {
            credential = file != null ? HostCredential.readPrivate(file)
                    : env != null && !env.isBlank() ? HostCredential.parse(env, "$" + HostCredential.ENV) : null;
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage()); // not a credential, or its engine= line no engine's URL: it names why
        }
        if (credential == null) {
            throw new UsageException("a relay needs its credential: --credential-file F or $" + HostCredential.ENV
                    + " (make one on the engine's machine with 'mpflc host-token --relay --host-id NAME -o F')");
        }
        String engine = given != null ? given : credential.engineUrl();
        if (engine == null) {
            throw new UsageException("give the engine with --engine URL (the credential names none)");
        }
        TlsSettings tls = TlsOptions.of(args);
        String bind = args.value("--bind");
        int port = args.intValue("--port", 7070);
        String advertise = args.value("--advertise") != null ? args.value("--advertise") : bind;
        if (advertise == null || advertise.equals("0.0.0.0") || advertise.equals("::") || advertise.equals("[::]")) {
            // the engine and the hosts are told this address: a wildcard reaches nobody (the engine's watch of it
            // failed and dropped the relay without a word)
            throw new UsageException("--bind " + (bind == null ? "0.0.0.0 (the default)" : bind) + " listens everywhere, so say"
                    + " where hosts and the engine reach this relay: --advertise HOST (this machine's address or name on the"
                    + " network they share)");
        }
        // hosts check the relay's certificate against this address: one it does not name fails every handshake, later
        java.util.Optional<String> unnamed = tls.unnamedAddress(advertise);
        if (unnamed.isPresent()) {
            throw new UsageException("this relay is reached at " + advertise + (args.value("--advertise") != null ? " (--advertise)"
                    : " (--bind)") + ", but " + unnamed.get() + ": give an address its certificate names, or a certificate for this one");
        }
        TlsSettings.plaintextWarning("this relay", bind == null ? "0.0.0.0" : bind, tls.serves(),
                "can read the hosts' control connections to it and impersonate it to them").ifPresent(w -> {
                    err.println("mpflc relay: " + w);
                    err.flush();
                });
        EngineCalls calls = new EngineCalls(engine.replaceAll("/+$", ""), credential, tls);
        try (RelayServer server = listen(credential, tls, calls, bind, port);
             CredentialSweep sweep = CredentialSweep.start(server, calls::stillValid, CredentialSweep.EVERY, m -> {
                 err.println("mpflc relay: " + m);
                 err.flush();
             })) {
            String address = advertise + ":" + server.port();
            if (!announceFirst(calls, address, FIRST_ANNOUNCEMENT_WITHIN, err)) {
                return 1;
            }
            CompletableFuture<String> refused = new CompletableFuture<>();
            Thread announcer = new Thread(() -> {
                try {
                    refused.complete(keepAnnouncing(calls, address, ANNOUNCE_EVERY, err));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "mpfl-relay-announce");
            announcer.setDaemon(true);
            announcer.start();
            out.println(READY_PREFIX + credential.hostId() + " listening on " + address);
            out.flush();
            // a relay whose credential is refused can verify no host either: it stops, saying so
            try {
                err.println("mpflc relay: " + refused.get() + "; stopping");
                return 1;
            } finally {
                announcer.interrupt(); // also when this command is interrupted (a relay inside another program)
            }
        }
    }

    /**
     * Announces the relay every {@code every} until the engine refuses its credential (401), which asking again does
     * not mend; any other failure is said on {@code err} and tried again.
     *
     * @return what the engine's refusal means
     */
    /** The relay's server on {@code bind:port}; a port that is taken is named with its address, as mpflc host names its own. */
    private static RelayServer listen(HostCredential credential, TlsSettings tls, EngineCalls calls, String bind, int port)
            throws IOException {
        try {
            return new RelayServer(credential.hostId(), credential.engineKey(), tls, calls::verify, RelayServer.Limits.DEFAULT,
                    bind, port);
        } catch (java.net.BindException e) {
            // the JDK says only "Address already in use"
            throw new IOException("cannot listen on " + (bind == null ? "0.0.0.0" : bind) + ":" + port + " (--bind, --port): "
                    + e.getMessage(), e);
        }
    }

    static String keepAnnouncing(EngineCalls calls, String address, Duration every, PrintStream err) throws InterruptedException {
        while (true) {
            Thread.sleep(every.toMillis());
            try {
                calls.announce(address);
            } catch (EngineRefused e) {
                if (e.status == 401) {
                    return e.getMessage();
                }
                err.println("mpflc relay: " + e.getMessage() + "; announcing again in " + every.toSeconds() + " s");
            } catch (IOException e) {
                // the engine's trouble or its absence, in words (EngineCalls): what happened, then what the relay does
                err.println("mpflc relay: " + e.getMessage() + "; announcing again in " + every.toSeconds() + " s");
            } catch (RuntimeException e) {
                err.println("mpflc relay: announcing failed: " + e.getMessage());
            }
        }
    }

    /**
     * The first announcement: tries again (every second) while the engine cannot be reached, for at most
     * {@code within}; an engine that answers with a refusal ends it at once. Says each failure on {@code err}.
     *
     * @return whether the engine took the announcement
     */
    static boolean announceFirst(EngineCalls calls, String address, Duration within, PrintStream err)
            throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (true) {
            try {
                calls.announce(address);
                return true;
            } catch (EngineRefused e) {
                // as mpflc host says its refusal: what the engine said (and what to do, in its words), then that it stops
                err.println("mpflc relay: " + e.getMessage() + "; stopping");
                return false;
            } catch (IOException e) {
                if (tlsRefused(e)) {
                    // an untrusted certificate, or no TLS where https was named: waiting does not mend it
                    err.println("mpflc relay: " + e.getMessage() + "; stopping");
                    return false;
                }
                if (System.nanoTime() - deadline >= 0) {
                    err.println("mpflc relay: the engine " + calls.engine + " could not be reached within "
                            + within.toSeconds() + " s (last: " + e.getMessage() + "); stopping");
                    return false;
                }
                err.println("mpflc relay: announcing to " + calls.engine + " failed (" + e.getMessage() + "); trying again");
                Thread.sleep(1_000);
            }
        }
    }

    private static boolean tlsRefused(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof javax.net.ssl.SSLException) {
                return true;
            }
        }
        return false;
    }

    /** The engine answered, and not with a success: asking again will not change its mind. */
    static final class EngineRefused extends IOException {
        private static final long serialVersionUID = 1L;
        /** The engine's HTTP status (4xx). */
        final int status;

        EngineRefused(int status, String message) {
            super(message);
            this.status = status;
        }
    }

    /** The relay's calls to the engine, under its credential. */
    static final class EngineCalls {
        private final String engine;
        private final HostCredential credential;
        private final HttpClient http;

        EngineCalls(String engine, HostCredential credential, TlsSettings tls) {
            this.engine = engine;
            this.credential = credential;
            this.http = tls.httpClient().connectTimeout(Duration.ofSeconds(5)).build();
        }

        void announce(String address) throws IOException {
            JsonNode a = post("/api/registry/relays", Map.of("relayId", credential.hostId(), "address", address));
            if (a == null) {
                throw new EngineRefused(400, "the engine refused the relay's announcement");
            }
        }

        /**
         * The engine's verdict on a host's proof for request {@code op}, with the addresses its registry knows for that
         * host, or the engine's reason when the proof is the host's but the request is not one it may make here.
         */
        RelayServer.Verdict verify(String op, String hostId, String nonce, String proof) throws IOException {
            JsonNode a = post("/api/registry/relays/verify", Map.of("op", op, "hostId", hostId, "nonce", nonce, "proof", proof));
            if (a == null || !a.path("valid").asBoolean(false)) {
                String why = a == null ? "" : a.path("error").asText("");
                return why.isBlank() ? RelayServer.Verdict.REFUSED : RelayServer.Verdict.refused(why);
            }
            List<String> addresses = new java.util.ArrayList<>();
            a.path("addresses").forEach(n -> addresses.add(n.asText()));
            return new RelayServer.Verdict(true, addresses, a.path("credential").asText(""));
        }

        /**
         * Of the registered hosts (host id → the id of the credential each proved), those whose credential the engine
         * still holds; an exception when the engine gives no such answer.
         */
        java.util.Set<String> stillValid(Map<String, String> credentialByHost) throws IOException {
            JsonNode a = post("/api/registry/relays/check", Map.of("hosts", credentialByHost));
            if (a == null || !a.path("valid").isArray()) {
                throw new IOException("the engine's answer names no valid hosts");
            }
            java.util.Set<String> valid = new java.util.HashSet<>();
            a.path("valid").forEach(n -> valid.add(n.asText()));
            return valid;
        }

        /** What a call to the engine's {@code path} asks for, as its refusal names it. */
        private static String what(String path) {
            return switch (path) {
                case "/api/registry/relays" -> "this relay's announcement";
                case "/api/registry/relays/verify" -> "this relay's check of a host's proof";
                case "/api/registry/relays/check" -> "this relay's check of its hosts' credentials";
                default -> "this relay's request to " + path;
            };
        }

        /** An answer's words on one line: the engine's {@code error}, else the body as it came (a proxy's page). */
        private static String said(String body) {
            String error = org.mpfl.protocol.EngineReach.errorOf(body);
            return error != null ? error : body.strip().replaceAll("\\s+", " ");
        }

        private JsonNode post(String path, Map<String, ?> body) throws IOException {
            HttpRequest req = HttpRequest.newBuilder(URI.create(engine + path)).timeout(Duration.ofSeconds(10))
                    .header("Authorization", credential.authorization()).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))).build();
            try {
                HttpResponse<String> r;
                try {
                    r = http.send(req, HttpResponse.BodyHandlers.ofString());
                } catch (IOException e) {
                    throw new IOException(EngineReach.unreachable(e, engine), e);
                }
                boolean engineSaid = EngineRefusal.of(r.statusCode(), r.headers().firstValue(EngineRefusal.HEADER).orElse(null))
                        .filter(EngineRefusal::refusesCredential).isPresent();
                if (r.statusCode() == 401 && !engineSaid) {
                    // not the engine's refusal of this credential: a proxy or load balancer in between; asked again
                    throw new IOException("HTTP 401 to " + path + " without the engine's " + EngineRefusal.HEADER + " mark:"
                            + " something between this relay and " + engine + " answered (a proxy or load balancer?), not the engine");
                }
                if (r.statusCode() == 401) {
                    throw new EngineRefused(401, "the engine at " + engine + " refuses this relay's credential (unknown, revoked or a"
                            + " wrong secret; a new one: mpflc host-token --relay --host-id " + credential.hostId()
                            + " on the engine's machine)");
                }
                if (r.statusCode() == 409 && engineSaid) {
                    // a host's credential (CREDENTIAL_KIND): the engine's words say which kind a relay needs
                    throw new EngineRefused(409, "the engine at " + engine + " refuses this relay's credential: "
                            + said(r.body()));
                }
                if (r.statusCode() / 100 == 4) {
                    String said = said(r.body() == null ? "" : r.body());
                    throw new EngineRefused(r.statusCode(), "the engine at " + engine + " refused " + what(path) + ": HTTP "
                            + r.statusCode() + (said.isEmpty() ? "" : ": " + said));
                }
                if (r.statusCode() / 100 != 2) {
                    String said = said(r.body() == null ? "" : r.body());
                    throw new IOException("the engine at " + engine + " answered HTTP " + r.statusCode() + " to " + what(path)
                            + (said.isEmpty() ? "" : ": " + said));
                }
                return r.body().isBlank() ? JSON.createObjectNode() : JSON.readTree(r.body());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted");
            }
        }
    }
}
