package org.mpfl.engine.cli;

import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.mpfl.ir.cli.ArgumentSpec;
import org.mpfl.ir.cli.Arguments;
import org.mpfl.ir.cli.CliCommand;
import org.mpfl.ir.cli.UsageException;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.local.LocalCluster;
import org.mpfl.engine.run.RunSettings;
import org.mpfl.engine.settings.EngineSettings;
import org.mpfl.protocol.tls.TlsOptions;
import org.mpfl.protocol.tls.TlsSettings;

/**
 * {@code mpflc up [--hosts N] [--port P]}: starts the engine with its console and N local service
 * hosts and keeps them running until interrupted. Also: {@code --data DIR} (runs database, token),
 * {@code --bind ADDR}, {@code --public-url URL}, {@code --host-file FILE}, {@code --token-file F}
 * (a fixed admin token, read from a file), {@code --jdbc URL} (with {@code --jdbc-user U} and the password from {@code --jdbc-password-file F} or {@code $MPFL_JDBC_PASSWORD}), {@code --heartbeat-timeout S},
 * {@code --service NAME=CLASS} (a hand-written {@code RankProgram} published on the local hosts),
 * {@code --quarantine S} (how long a host that refused a deployment or {@code run} gets no ranks at
 * first; doubles per offence in a row up to 15 minutes or S, whichever is longer),
 * {@code --max-replacements N} (how often one run may be placed again after host faults),
 * {@code --reattach-grace S} (how long a restarted engine waits for the hosts of the runs it re-attaches
 * to, default 60) and {@code --engine-loss-grace S} (how long hosts keep running ranks while the engine
 * is unreachable, default 120; see {@code docs/durability.md}), {@code --relay-return S} (how long, once a relay
 * is lost, the engine waits for it and the hosts behind it, and those hosts keep their ranks without it; default 60;
 * see {@code docs/deployment.md}, "Across sites"),
 * {@code --checkpoint-dir DIR} (where ranks' checkpoint parts are kept; default {@code DATA/checkpoints}),
 * {@code --checkpoint-max-bytes N} (the largest part one rank may upload; default 64 MiB),
 * access ({@code --oidc-issuer URL --oidc-audience A} and the claim options, {@code --anonymous-read},
 * {@code --audit-retention-days D}; see {@link AccessOptions}),
 * and TLS ({@code --tls-cert F --tls-key F} or {@code --tls-keystore F.p12}, with {@code --tls-ca F}:
 * the console, the REST API and the local hosts then speak {@code https}; see {@link TlsSettings}).
 */
public final class UpCommand implements CliCommand {
    static final ArgumentSpec SPEC = ArgumentSpec.of("up", "Starts the engine with its console and N local service hosts and"
            + " keeps them running until interrupted (Ctrl-C).")
            .value("--hosts", "N", null, "local service hosts to start (default 2; 0 with --provider)")
            .value("--python", "PATH", "the interpreter of <compute python> kernels on the local hosts (default: python3 on the PATH)")
            .value("--port", "P", "8080", "the engine's port (0: any free port)")
            .value("--data", "DIR", "the runs database, token and URL files (default ~/.mpfl/engine)")
            .value("--bind", "ADDR", "the address to listen on")
            .value("--public-url", "URL", "the URL hosts and clients reach the engine by")
            .value("--host-file", "F", "a file naming the hosts allowed to enrol")
            .value("--token-file", "F", "a fixed admin token, read from this file")
            .value("--jdbc", "URL", "the runs database (else H2 in --data)")
            .value("--jdbc-user", "U", "sa", "the database user")
            .value("--jdbc-password-file", "F", "the database password (else $MPFL_JDBC_PASSWORD)")
            .value("--heartbeat-timeout", "S", "10", "seconds without a host's heartbeat before it counts as lost")
            .repeatable("--service", "NAME=CLASS", "a hand-written RankProgram published on the local hosts")
            .value("--quarantine", "S", "how long a host that refused a deployment or run gets no ranks at first (doubles per"
                    + " offence in a row up to 15 minutes or S)")
            .value("--max-replacements", "N", "how often one run may be placed again after host faults")
            .value("--queue-timeout", "S", "0", "how long a run may wait in the run queue before it fails, unless it says"
                    + " (0: no bound)")
            .value("--reattach-grace", "S", "60", "how long a restarted engine waits for the hosts of the runs it re-attaches to")
            .value("--engine-loss-grace", "S", "120", "how long hosts keep running ranks while the engine is unreachable")
            .value("--relay-return", "S", "60", "how long, once a relay is lost, a restart waits for it and the hosts behind it"
                    + " keep their ranks without it")
            .value("--checkpoint-dir", "DIR", "where ranks' checkpoint parts are kept (default DATA/checkpoints)")
            .value("--checkpoint-max-bytes", "N", "the largest part one rank may upload (default 64 MiB)")
            .with(TlsOptions::serving)
            .with(AccessOptions::serving)
            .with(ProviderOptions::serving)
            .note("With TLS (--tls-cert/--tls-key or --tls-keystore, with --tls-ca) the console, the REST API and the local hosts"
                    + " speak https.");
    @Override
    public String name() {
        return "up";
    }

    @Override
    public String summary() {
        return "[--hosts N] [--port P] [--data DIR] [--host-file F]  start the engine, console and N local hosts";
    }

    @Override
    public int run(List<String> argList, PrintStream out, PrintStream err) throws Exception {
        Arguments args = SPEC.parse(argList);
        int hosts = args.intValue("--hosts", args.has("--provider") ? 0 : 2);
        int port = args.intValue("--port");
        if (hosts < 0 || port < 0 || port > 65535) {
            throw new UsageException("--hosts must be >= 0 and --port within 0..65535");
        }
        requireLocalHosts(hosts);
        EngineConfig config = new EngineConfig().port(port).dataDir(EngineClient.dataDir(args.value("--data")))
                .heartbeatTimeout(Duration.ofSeconds(args.intValue("--heartbeat-timeout")))
                .tls(TlsOptions.of(args));
        AccessOptions.apply(args, config);
        config.runSettings(quarantine(args, config.runSettings()));
        int queueTimeout = args.intValue("--queue-timeout");
        if (queueTimeout < 0) {
            throw new UsageException("--queue-timeout must be at least 0 (seconds; 0: no bound)");
        }
        config.runSettings(config.runSettings().withQueueTimeout(Duration.ofSeconds(queueTimeout)));
        int reattach = args.intValue("--reattach-grace", (int) config.reattachGrace().toSeconds());
        int lossGrace = args.intValue("--engine-loss-grace", (int) config.engineLossGrace().toSeconds());
        if (reattach < 1 || lossGrace < 0) {
            throw new UsageException("--reattach-grace must be >= 1 and --engine-loss-grace >= 0");
        }
        config.reattachGrace(Duration.ofSeconds(reattach)).engineLossGrace(Duration.ofSeconds(lossGrace));
        int relayReturn = args.intValue("--relay-return", (int) config.relayReturn().toSeconds());
        if (relayReturn < 1) {
            throw new UsageException("--relay-return must be >= 1 (seconds)");
        }
        config.relayReturn(Duration.ofSeconds(relayReturn));
        if (args.has("--checkpoint-dir")) {
            config.checkpointDir(args.path("--checkpoint-dir"));
        }
        if (args.has("--checkpoint-max-bytes")) {
            long max = args.longValue("--checkpoint-max-bytes", 0);
            if (max < 1) {
                throw new UsageException("--checkpoint-max-bytes must be at least 1");
            }
            config.checkpointMaxBytes(max);
        }
        if (args.has("--bind")) {
            config.bindHost(args.value("--bind"));
        }
        if (args.has("--public-url")) {
            config.publicUrl(args.value("--public-url"));
        }
        if (args.has("--host-file")) {
            config.hostFile(args.path("--host-file"));
        }
        for (String secret : List.of("--token-file", "--jdbc-password-file")) {
            if (args.has(secret)) {
                EngineClient.exposedSecret(args.path(secret)).ifPresent(w -> err.println("mpflc up: " + w));
            }
        }
        if (args.has("--token-file")) {
            config.token(EngineClient.readSecretFile(args.path("--token-file")));
        }
        if (args.has("--jdbc")) {
            // the password from a file or the environment, never the command line (every user sees ps)
            String password = args.has("--jdbc-password-file")
                    ? EngineClient.readSecretFile(args.path("--jdbc-password-file"))
                    : EngineSettings.JDBC_PASSWORD.get("");
            config.jdbc(args.value("--jdbc"), args.value("--jdbc-user"), password);
        }
        requireNamedAddress(args, config);
        ProviderOptions.apply(args, config);
        RunCommand.kernelPython(args);
        LocalCluster cluster = LocalCluster.start(config, hosts, RunCommand.services(args), Duration.ofSeconds(60));
        Engine engine = cluster.engine();
        out.println("MPFL engine and console: " + engine.url() + "/");
        out.println("REST API: " + engine.url() + "/api  (OpenAPI: " + engine.url() + "/api/openapi)");
        out.println("service hosts: " + engine.registry().hosts().size() + "; engine token in "
                + config.dataDir().resolve(Engine.TOKEN_FILE) + (config.token() != null ? " (given with --token-file)" : ""));
        engine.access().users().ifPresent(users -> usersBanner(users, out, err));
        String capacity = ProviderOptions.banner(args);
        if (capacity != null) {
            out.println(capacity);
        }
        // with TLS both commands need the CA too, or the enrolment fails on the engine's certificate
        String ca = config.tls().enabled() ? " --tls-ca CA.pem" : "";
        // host-token needs the admin token: it finds it in the default data directory, else it must be told where
        String data = args.has("--data") ? " --data " + config.dataDir() : "";
        out.println("a host on another machine: mpflc host-token --engine " + engine.url() + data + ca + " -o host.credential, copy the"
                + " file there, then mpflc host --credential-file host.credential --bind ADDR"
                + (ca.isEmpty() ? "" : " --tls-cert CERT.pem --tls-key KEY.pem" + ca) + " (docs/deployment.md)");
        out.println("press Ctrl-C to stop");
        out.flush();
        // the JVM shutdown hook of the cluster stops hosts and engine on Ctrl-C
        new CountDownLatch(1).await();
        return 0;
    }

    /**
     * Says whose users the engine accepts, and asks the issuer once: a wrong {@code --oidc-issuer} (a typo, a trailing
     * slash the issuer does not use, an issuer not started yet) would otherwise show only as every user's 503.
     */
    private static void usersBanner(org.mpfl.engine.access.OidcVerifier users, PrintStream out, PrintStream err) {
        var s = users.settings();
        out.println("users: OpenID Connect issuer " + s.issuer() + ", audience " + s.audience() + "; roles from claim '" + s.rolesClaim()
                + "', projects from '" + s.projectsClaim() + "'" + (s.consoleClientId() != null ? "; console login as client "
                + s.consoleClientId() : ""));
        try {
            users.discovery();
        } catch (org.mpfl.engine.access.OidcVerifier.TokenRefused e) {
            err.println("mpflc up: WARNING: " + e.getMessage() + ". Until it answers, users' requests get 503 (the admin token"
                    + " works); check --oidc-issuer: it must be exactly the issuer's 'iss', e.g. https://KEYCLOAK/realms/lab");
        }
    }

    /**
     * Refuses a certificate that does not name the address hosts and ranks reach the engine at (the host of
     * {@code --public-url}, else a {@code --bind} of one address), as {@code mpflc host} refuses its {@code --advertise}:
     * otherwise the engine starts, and every host's announcement fails its TLS handshake, seen only in each host's log.
     */
    static void requireNamedAddress(Arguments args, EngineConfig config) throws UsageException {
        String flag = args.has("--public-url") ? "--public-url" : "--bind";
        String address = config.bindHost();
        if (args.has("--public-url")) {
            try {
                address = java.net.URI.create(config.publicUrl()).getHost();
            } catch (IllegalArgumentException e) {
                return; // not a URL: not this check's to judge
            }
        } else if (address.equals("0.0.0.0") || address.equals("::")) {
            return; // every address: which one hosts use is the --public-url's to say
        }
        if (address != null && address.startsWith("[") && address.endsWith("]")) {
            address = address.substring(1, address.length() - 1);
        }
        String at = address;
        java.util.Optional<String> unnamed = config.tls().unnamedAddress(at);
        if (unnamed.isPresent()) {
            throw new UsageException("the engine is reached at " + at + " (" + flag + "), but " + unnamed.get()
                    + ": give an address its certificate names, or a certificate for this one");
        }
    }

    /**
     * Refuses more local host processes than {@code mpfl.local.maxHosts} before any starts: each is a JVM of this
     * machine, and a mistyped {@code --hosts 100000} started them one after another until the machine ran out of memory.
     */
    static void requireLocalHosts(int hosts) throws UsageException {
        int limit = EngineSettings.LOCAL_MAX_HOSTS.get();
        if (hosts > limit) {
            throw new UsageException("--hosts " + hosts + ": mpflc starts at most " + limit + " service host processes on this"
                    + " machine (-Dmpfl.local.maxHosts), each a JVM; more hosts belong on the machines whose cores they use"
                    + " (mpflc host there, docs/deployment.md)");
        }
    }

    /** The run settings with {@code --quarantine S} and {@code --max-replacements N} applied. */
    static RunSettings quarantine(Arguments args, RunSettings settings) throws UsageException {
        int seconds = args.intValue("--quarantine", (int) settings.quarantine().toSeconds());
        int replacements = args.intValue("--max-replacements", settings.maxReplacements());
        if (seconds < 0 || replacements < 0) {
            throw new UsageException("--quarantine and --max-replacements must be >= 0");
        }
        Duration first = Duration.ofSeconds(seconds);
        Duration max = first.compareTo(RunSettings.QUARANTINE_MAX) > 0 ? first : RunSettings.QUARANTINE_MAX;
        return settings.withQuarantine(first, max, replacements);
    }
}
