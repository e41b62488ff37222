package org.mpfl.engine.cli;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import org.mpfl.ir.cli.CliCommand;
import org.mpfl.ir.cli.UsageException;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.local.LocalCluster;
import org.mpfl.engine.run.RunSettings;
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
 * is unreachable, default 120; see {@code docs/durability.md}),
 * {@code --checkpoint-dir DIR} (where ranks' checkpoint parts are kept; default {@code DATA/checkpoints}),
 * {@code --checkpoint-max-bytes N} (the largest part one rank may upload; default 64 MiB),
 * and TLS ({@code --tls-cert F --tls-key F} or {@code --tls-keystore F.p12}, with {@code --tls-ca F}:
 * the console, the REST API and the local hosts then speak {@code https}; see {@link TlsSettings}).
 */
public final class UpCommand implements CliCommand {
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
        Set<String> options = new java.util.HashSet<>(Set.of("hosts", "port", "data", "bind", "public-url", "host-file",
                "token-file", "jdbc", "jdbc-user", "jdbc-password-file", "heartbeat-timeout", "service", "quarantine",
                "max-replacements", "reattach-grace", "engine-loss-grace",
                "checkpoint-dir", "checkpoint-max-bytes"));
        options.addAll(TlsSettings.OPTIONS);
        CliArgs args = CliArgs.parse(argList, options, Set.of());
        if (!args.positionals.isEmpty()) {
            throw new UsageException("unexpected " + args.positionals);
        }
        int hosts = args.intOption("hosts", 2);
        int port = args.intOption("port", 8080);
        if (hosts < 0 || port < 0 || port > 65535) {
            throw new UsageException("--hosts must be >= 0 and --port within 0..65535");
        }
        EngineConfig config = new EngineConfig().port(port).dataDir(EngineClient.dataDir(args.option("data")))
                .heartbeatTimeout(Duration.ofSeconds(args.intOption("heartbeat-timeout", 10)))
                .tls(args.tls());
        config.runSettings(quarantine(args, config.runSettings()));
        int reattach = args.intOption("reattach-grace", (int) config.reattachGrace().toSeconds());
        int lossGrace = args.intOption("engine-loss-grace", (int) config.engineLossGrace().toSeconds());
        if (reattach < 1 || lossGrace < 0) {
            throw new UsageException("--reattach-grace must be >= 1 and --engine-loss-grace >= 0");
        }
        config.reattachGrace(Duration.ofSeconds(reattach)).engineLossGrace(Duration.ofSeconds(lossGrace));
        if (args.option("checkpoint-dir") != null) {
            config.checkpointDir(Path.of(args.option("checkpoint-dir")));
        }
        if (args.option("checkpoint-max-bytes") != null) {
            long max;
            try {
                max = Long.parseLong(args.option("checkpoint-max-bytes"));
            } catch (NumberFormatException e) {
                throw new UsageException("--checkpoint-max-bytes must be a number of bytes");
            }
            if (max < 1) {
                throw new UsageException("--checkpoint-max-bytes must be at least 1");
            }
            config.checkpointMaxBytes(max);
        }
        if (args.option("bind") != null) {
            config.bindHost(args.option("bind"));
        }
        if (args.option("public-url") != null) {
            config.publicUrl(args.option("public-url"));
        }
        if (args.option("host-file") != null) {
            config.hostFile(Path.of(args.option("host-file")));
        }
        if (args.option("token-file") != null) {
            config.token(EngineClient.readSecretFile(Path.of(args.option("token-file"))));
        }
        if (args.option("jdbc") != null) {
            // the password from a file or the environment, never the command line (every user sees ps)
            String password = args.option("jdbc-password-file") != null
                    ? EngineClient.readSecretFile(Path.of(args.option("jdbc-password-file")))
                    : System.getenv().getOrDefault("MPFL_JDBC_PASSWORD", "");
            config.jdbc(args.option("jdbc"), args.options.getOrDefault("jdbc-user", "sa"), password);
        }
        LocalCluster cluster = LocalCluster.start(config, hosts, args.services, Duration.ofSeconds(60));
        Engine engine = cluster.engine();
        out.println("MPFL engine and console: " + engine.url() + "/");
        out.println("REST API: " + engine.url() + "/api  (OpenAPI: " + engine.url() + "/api/openapi)");
        out.println("service hosts: " + engine.registry().hosts().size() + "; engine token in "
                + config.dataDir().resolve(Engine.TOKEN_FILE) + (config.token() != null ? " (given with --token-file)" : ""));
        // with TLS both commands need the CA too, or the enrolment fails on the engine's certificate
        String ca = config.tls().enabled() ? " --tls-ca CA.pem" : "";
        out.println("a host on another machine: mpflc host-token --engine " + engine.url() + ca + " -o host.credential, copy the"
                + " file there, then mpflc host --credential-file host.credential --bind ADDR"
                + (ca.isEmpty() ? "" : " --tls-cert CERT.pem --tls-key KEY.pem" + ca) + " (docs/deployment.md)");
        out.println("press Ctrl-C to stop");
        out.flush();
        // the JVM shutdown hook of the cluster stops hosts and engine on Ctrl-C
        new CountDownLatch(1).await();
        return 0;
    }

    /** The run settings with {@code --quarantine S} and {@code --max-replacements N} applied. */
    static RunSettings quarantine(CliArgs args, RunSettings settings) throws UsageException {
        int seconds = args.intOption("quarantine", (int) settings.quarantine().toSeconds());
        int replacements = args.intOption("max-replacements", settings.maxReplacements());
        if (seconds < 0 || replacements < 0) {
            throw new UsageException("--quarantine and --max-replacements must be >= 0");
        }
        Duration first = Duration.ofSeconds(seconds);
        Duration max = first.compareTo(RunSettings.QUARANTINE_MAX) > 0 ? first : RunSettings.QUARANTINE_MAX;
        return settings.withQuarantine(first, max, replacements);
    }
}
