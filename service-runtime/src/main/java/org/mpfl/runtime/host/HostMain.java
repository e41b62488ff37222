package org.mpfl.runtime.host;

import org.mpfl.runtime.settings.RuntimeSettings;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.mpfl.ir.cli.ArgumentSpec;
import org.mpfl.ir.cli.Arguments;
import org.mpfl.ir.cli.HelpRequested;
import org.mpfl.ir.cli.UsageException;
import org.mpfl.protocol.EngineReach;
import org.mpfl.protocol.HostCredential;
import org.mpfl.protocol.Sites;
import org.mpfl.protocol.launch.HostProcesses;
import org.mpfl.protocol.settings.ProtocolSettings;
import org.mpfl.protocol.tls.TlsOptions;
import org.mpfl.protocol.tls.TlsSettings;
import org.mpfl.runtime.api.RankProgram;

/**
 * The service-host process: {@code mpflc host [--engine URL] [--port P] [--bind ADDR] [--services DIR]
 * [--host-id ID] [--advertise NAME] [--capacity N] [--site NAME] [--credential-file F] [--no-binary | --binary-port P]
 * [--service NAME=CLASS]… [--extension NAME]… [--exit-with-parent] [--credential-stdin --host-id ID
 * [--credential-timeout S]]} and the TLS flags of
 * {@link TlsSettings} ({@code --tls-cert F --tls-key F} or {@code --tls-keystore F.p12}, {@code --tls-ca F};
 * with TLS on, the SOAP endpoint and the binary channel both run over TLS; {@code --no-binary} still
 * turns the binary channel off). {@code --port} and {@code --binary-port} default to 0, any free port;
 * a fixed binary port is what a firewall between hosts can open (a blocked one means SOAP to this host).
 *
 * <p>A host that listens on a non-loopback address without TLS prints one WARNING line on stderr
 * at start.
 *
 * <p>The host's credential (from {@code mpflc host-token}) comes from {@code --credential-file F} or
 * the environment variable {@value HostCredential#ENV} (its text), never from the command line,
 * which every user sees in {@code ps}. With it the host announces itself under the credential's host
 * id and accepts deployments and {@code run} only with the engine's key for this host; without it
 * (and without {@code --engine}) it accepts them from this machine only. {@code --engine} without a
 * credential is refused: the engine's registry is closed.
 *
 * <p>{@code --credential-stdin} (for launchers, with {@code --host-id ID}) starts the host at once and takes
 * the engine's URL and the credential afterwards, as one line on standard input
 * ({@link HostCredential#line()}), within {@code --credential-timeout S} (default 120): so a launcher
 * can start its hosts while its engine is still starting. Until the line arrives the host refuses every
 * call that makes it act, also from this machine; no line within the bound, or the input closed first,
 * ends the host with a message saying so. The ready line comes after the hand-over.
 *
 * <p>Prints exactly one ready line on stdout once it accepts requests and, with an engine, once the engine answered its
 * first announcement (a host the engine refuses says why on stderr and exits 1 without it; one that cannot reach its
 * engine yet prints it and keeps trying) —
 * {@code MPFL host <hostId> listening on http://ADDR:PORT/ binary ADDR:PORT2} ({@code binary none}
 * without the binary channel), then {@code services A,B} or {@code no services} — so launchers can wait for it, then runs until killed.
 * {@code --service NAME=CLASS} publishes a hand-written {@link RankProgram} class (no-argument
 * constructor) as a service type; {@code --extension NAME} installs an optional {@link HostExtension}
 * found on the class path (none is installed unless asked); {@code --exit-with-parent} ends the host when its standard input
 * closes (the launching process died), so test and benchmark hosts never outlive their launcher.
 */
public final class HostMain {
    /** Prefix of the ready line (the launcher's {@link HostProcesses#READY_PREFIX}). */
    public static final String READY_PREFIX = HostProcesses.READY_PREFIX;

    private HostMain() {
    }

    public static void main(String[] args) {
        quietLogging();
        try {
            System.exit(run(List.of(args), System.out, System.err));
        } catch (HelpRequested e) {
            System.out.print(e.usage());
            System.exit(0);
        } catch (UsageException e) {
            System.err.println("mpflc host: " + e.getMessage());
            System.exit(2);
        } catch (Exception e) {
            System.err.println("mpflc host: " + e.getMessage());
            System.exit(1);
        }
    }

    /**
     * How long the process's exit waits for the host to close ({@code mpfl.host.exitCloseWaitMs},
     * default 500 ms). Axis2's HTTP server waits seconds for its workers, which sit on idle keep-alive
     * connections (the engine's, the peers'); the process is ending and the OS closes every socket
     * anyway, so waiting for them only made every {@code mpflc run --local} end ~3 s after its result.
     */
    static final long EXIT_CLOSE_WAIT_MS = RuntimeSettings.HOST_EXIT_CLOSE_WAIT_MS.get();

    /** Axis2's switch: its HTTP server's stop closes open connections at once instead of awaiting their workers 3 s. */
    static final String AXIS2_FAST_SHUTDOWN = "org.apache.axis2.transport.http.server.fastShutdown";

    /** Closes the host on another thread and waits at most {@code waitMs} for it; whether it closed within. */
    static boolean closeWithin(ServiceHost host, long waitMs) {
        Thread closer = new Thread(host::close, "mpfl-host-close");
        closer.setDaemon(true);
        closer.start();
        try {
            closer.join(waitMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return !closer.isAlive();
    }

    /** Keeps Axis2's informational chatter (and its warning on every closed keep-alive connection) out of the log. */
    static void quietLogging() {
        setIfAbsent("org.slf4j.simpleLogger.log.org.apache.axis2", "warn");
        setIfAbsent("org.slf4j.simpleLogger.log.org.apache.axis2.transport.http.server.HttpServiceProcessor", "error");
        setIfAbsent("org.slf4j.simpleLogger.log.org.apache.axis2.deployment", "error");
        setIfAbsent("org.slf4j.simpleLogger.log.org.apache.axiom", "warn");
    }

    private static void setIfAbsent(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }

    /** The options of {@code mpflc host}. */
    static final ArgumentSpec SPEC = ArgumentSpec.of("host", "Runs one service host in this process; prints one ready line"
            + " (" + READY_PREFIX + "ID listening on URL/ binary ADDR:PORT ...) once it accepts requests and its engine answered its"
            + " announcement, then serves until killed.")
            .value("--engine", "URL", "the engine to announce this host to (needs the host's credential)")
            .value("--credential-file", "F", "this host's credential (a join file from mpflc host-token; or $"
                    + HostCredential.ENV + ")")
            .value("--port", "P", "0", "the SOAP endpoint's port (0: any free port)")
            .value("--bind", "ADDR", "127.0.0.1", "the address to listen on")
            .value("--advertise", "NAME", "the host name peers and the engine reach this host by (default: the bind address)")
            .value("--host-id", "ID", "this host's id (must match the credential's)")
            .value("--services", "DIR", "a directory of service archives (.aar) to deploy at start")
            .value("--capacity", "N", "ranks the engine may place here (default: the number of cores)")
            .value("--site", "NAME", Sites.DEFAULT, "the site this host is in (hosts of one site reach each other cheaply;"
                    + " the engine packs a run's ranks within one site while it can)")
            .flag("--oversubscribe", "let the engine place more ranks here than --capacity when every host is full (as mpirun's)")
            .flag("--no-binary", "no binary channel (SOAP only)")
            .value("--binary-port", "P", "0", "the binary channel's port (0: any free port; a fixed one is what a firewall can open)")
            .repeatable("--service", "NAME=CLASS", "publish a hand-written RankProgram class as service type NAME")
            .repeatable("--extension", "NAME", "install an optional host extension found on the class path")
            .value("--python", "PATH", "the interpreter of <compute python> kernel workers (a virtualenv's or conda's python;"
                    + " default: python3 on the PATH)")
            .repeatable("--allow-command-dir", "DIR", "a directory whose executables <compute command> may name by absolute path"
                    + " (kernels run with this host's rights: docs/security.md)")
            .value("--relay", "HOST:PORT", "this host accepts no connection from outside its site: hold a connection to this"
                    + " relay (mpflc relay) for peers and the engine to reach it, and reach such peers through it")
            .flag("--exit-with-parent", "end the host when its standard input closes (the launcher died)")
            .flag("--credential-stdin", "take the engine's URL and the credential as one line on standard input (with --host-id)")
            .value("--credential-timeout", "S", "120", "how long --credential-stdin waits for that line")
            .with(TlsOptions::serving)
            .note("With TLS on, the SOAP endpoint and the binary channel both run over TLS. The credential never comes from the"
                    + " command line (every user sees ps).");

    /** Parses the options, starts the host, prints the ready line and blocks until the host is stopped. */
    public static int run(List<String> args, PrintStream out, PrintStream err) throws Exception {
        quietLogging();
        Arguments given = SPEC.parse(args);
        String engine = given.has("--engine") ? EngineReach.checkedUrl(given.value("--engine"), "--engine") : null;
        Path credentialFile = given.path("--credential-file");
        String bind = given.value("--bind");
        String advertise = given.value("--advertise");
        String hostId = given.value("--host-id");
        String relay = given.value("--relay");
        Path services = given.path("--services");
        int port = port(given, "--port");
        int binaryPort = port(given, "--binary-port");
        // below 1 the engine refuses the announcement, and the host would keep asking: say so before it starts
        int capacity = given.value("--capacity") == null ? Runtime.getRuntime().availableProcessors()
                : given.intAtLeast("--capacity", 1);
        boolean oversubscribe = given.flag("--oversubscribe");
        String site;
        try {
            site = Sites.of(given.value("--site"));
        } catch (IllegalArgumentException e) {
            throw new UsageException("--site: " + e.getMessage());
        }
        boolean binary = !given.flag("--no-binary");
        boolean exitWithParent = given.flag("--exit-with-parent");
        boolean credentialStdin = given.flag("--credential-stdin");
        int credentialTimeoutS = given.intValue("--credential-timeout");
        List<String[]> programs = new ArrayList<>();
        for (Map.Entry<String, String> p : given.pairs("--service").entrySet()) {
            programs.add(new String[] {p.getKey(), p.getValue()});
        }
        List<HostExtension> extensions = new ArrayList<>();
        for (String name : given.values("--extension")) {
            extensions.add(HostExtension.named(name));
        }
        KernelOptions.apply(given.value("--python"), given.values("--allow-command-dir"));
        Map<String, String> tlsOptions = TlsOptions.given(given);
        if (port != 0 && port == binaryPort) {
            throw new UsageException("--port " + port + " and --binary-port " + binaryPort + " are the same port: the SOAP endpoint"
                    + " and the binary channel each need one of their own");
        }
        if (!binary && binaryPort != 0) {
            throw new UsageException("--binary-port " + binaryPort + " and --no-binary contradict each other: "
                    + "--no-binary opens no binary port");
        }
        String environmentCredential = ProtocolSettings.HOST_CREDENTIAL.raw();
        if (credentialStdin) {
            checkStdinHandOver(engine, credentialFile, environmentCredential, hostId, credentialTimeoutS);
        }
        HostCredential credential = credential(credentialFile, environmentCredential);
        if (engine == null && credential != null && credential.engineUrl() != null) {
            engine = credential.engineUrl();
        }
        if (engine != null && credential == null) {
            throw new UsageException("--engine needs this host's credential: --credential-file F or $" + HostCredential.ENV
                    + " (make one on the engine's machine with 'mpflc host-token --engine URL -o F')");
        }
        if (credential != null) {
            if (hostId != null && !hostId.equals(credential.hostId())) {
                throw new UsageException("--host-id " + hostId + " differs from the credential's host id " + credential.hostId());
            }
            hostId = credential.hostId();
        }
        TlsSettings tls = TlsSettings.fromOptions(tlsOptions);
        if (tls.serves() && engine != null && engine.regionMatches(true, 0, "http://", 0, 7)) {
            // its credential would go to the engine in the clear, and the engine could not call it (no CA)
            throw new UsageException("this host has TLS on and never sends to an http:// peer, but its engine is " + engine
                    + ": give the engine's https:// URL (--engine), or issue the credential from it (mpflc host-token --engine https://…)");
        }
        // where peers reach this host: its --advertise, else a --bind that is one address (not every address)
        String reachedAt = advertise != null ? advertise : bind != null && !bind.equals("0.0.0.0") && !bind.equals("::") ? bind : null;
        Optional<String> unnamed = tls.unnamedAddress(reachedAt);
        if (unnamed.isPresent()) {
            throw new UsageException("this host is reached at " + reachedAt + (advertise != null ? " (--advertise)" : " (--bind)")
                    + ", but " + unnamed.get() + ": give an address its certificate names, or a certificate for this one");
        }
        TlsSettings.plaintextWarning("this service host", bind, tls.serves(), ServiceHost.PLAINTEXT_EXPOSURE)
                .ifPresent(w -> {
                    err.println("mpflc host: " + w);
                    err.flush();
                });
        ServiceHost host = ServiceHost.start(new ServiceHost.Options(bind, port, services, hostId, advertise, binary, binaryPort, tls,
                credentialStdin));
        Runnable launcherGone = () -> {
            System.err.println("mpflc host: standard input closed (launcher gone): exiting");
            System.exit(0);
        };
        EngineAnnouncer announcer = null;
        AtomicReference<EngineAnnouncer> announcing = new AtomicReference<>();
        CountDownLatch stopped = new CountDownLatch(1);
        // a refused credential stops the host: retrying cannot mend it, and a Slurm job's host would hold its nodes for nothing
        AtomicReference<String> credentialRefused = new AtomicReference<>();
        // before the hand-over wait, which a launcher that gives up may end with SIGTERM
        Thread shutdown = new Thread(() -> {
            EngineAnnouncer a = announcing.get();
            if (a != null) {
                a.close();
            }
            // the process ends: requests in flight end with it, so the HTTP server need not give the
            // workers on idle keep-alive connections (the engine's, the peers') its 3 s before it closes them
            System.setProperty(AXIS2_FAST_SHUTDOWN, "true");
            closeWithin(host, EXIT_CLOSE_WAIT_MS);
            stopped.countDown();
            // the last word to a launcher (HostProcesses): cleaned up, nothing left to wait for
            out.close();
        }, "mpfl-host-shutdown");
        Runtime.getRuntime().addShutdownHook(shutdown);
        try {
            for (String[] p : programs) {
                publish(host, p[0], p[1]);
            }
            host.setCredential(credential);
            for (HostExtension extension : extensions) {
                extension.install(host);
            }
            if (credentialStdin) {
                // the heavy start-up (Axis2, ports) is done; now wait for the launcher's engine
                ParentStdin stdin = ParentStdin.watch(System.in, true, exitWithParent ? launcherGone : null);
                credential = handedOver(stdin.awaitLine(Duration.ofSeconds(credentialTimeoutS)), hostId);
                engine = credential.engineUrl();
                host.setCredential(credential);
            }
            if (relay != null) {
                if (credential == null) {
                    throw new UsageException("--relay needs this host's credential (the relay admits only enrolled hosts)");
                }
                // how this host dials through its relay, now; its own registration there once the engine knows it
                HostRelay.dial(host, credential, relay, site);
                if (engine == null) {
                    HostRelay.link(host, credential, relay, site);
                }
            } else if (credential != null) {
                HostRelay.dial(host, credential, null, site);
            }
            if (engine != null) {
                announcer = new EngineAnnouncer(host, engine, credential, capacity, oversubscribe, site);
                announcer.relay(relay);
                if (relay != null) {
                    // the relay registers only the addresses the engine's registry holds for this host (docs/security.md)
                    HostCredential joining = credential;
                    String relayAddress = relay;
                    EngineAnnouncer watching = announcer;
                    // watched by the announcer: a link down past the engine's relay-return bound ends the ranks here
                    announcer.onFirstAnnouncement(() -> watching.relayLink(HostRelay.link(host, joining, relayAddress, site)));
                }
                announcer.onCredentialRefused(why -> {
                    credentialRefused.set(why);
                    stopped.countDown();
                });
                CountDownLatch answered = new CountDownLatch(1);
                announcer.onFirstAnswer(answered::countDown);
                EngineAnnouncer a = announcer;
                host.onDeploy(a::reannounce);
                announcing.set(announcer);
                announcer.start();
                // ready only once the engine answered: a host it refuses (another live process holds the credential, a
                // revoked one) says so and stops without ever saying it is ready; one that cannot reach it yet goes on
                // (each try ends within the announcer's call timeout), as does one asked to announce again shortly
                // until that is settled
                answered.await();
                if (credentialRefused.get() != null) {
                    throw new IOException(credentialRefused.get() + "; stopping");
                }
            }
            out.println(READY_PREFIX + host.hostId() + " listening on " + host.baseUrl() + "/ binary "
                    + (host.binaryAddress() == null ? "none" : host.binaryAddress())
                    + readyServices(host.serviceTypes()));
            out.flush();
            if (exitWithParent && !credentialStdin) {
                ParentStdin.watch(System.in, false, launcherGone);
            }
            stopped.await();
            if (credentialRefused.get() != null) {
                throw new IOException(credentialRefused.get() + "; stopping");
            }
            return 0;
        } catch (Exception e) {
            if (announcer != null) {
                announcer.close();
            }
            host.close();
            try {
                Runtime.getRuntime().removeShutdownHook(shutdown);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs anyway and closes the closed host again, which does nothing
            }
            throw e;
        }
    }

    /**
     * The ready line's tail: {@code " services A,B"}, or {@code " no services"} for a host that publishes none yet (the
     * engine deploys its services to it), rather than a bare "services " that reads like a line cut short.
     */
    static String readyServices(java.util.Collection<String> types) {
        return types.isEmpty() ? " no services" : " services " + String.join(",", types);
    }

    /** {@code --credential-stdin} is the one source of the engine's URL and the credential, for a host of known id. */
    private static void checkStdinHandOver(String engine, Path credentialFile, String environmentCredential, String hostId,
                                           int timeoutS) throws UsageException {
        if (engine != null || credentialFile != null || (environmentCredential != null && !environmentCredential.isBlank())) {
            throw new UsageException("--credential-stdin takes the engine's URL and the credential from standard input:"
                    + " give no --engine, --credential-file or $" + HostCredential.ENV + " with it");
        }
        if (hostId == null) {
            throw new UsageException("--credential-stdin needs --host-id ID (the host's id is fixed at its start,"
                    + " before its credential arrives)");
        }
        if (timeoutS < 1) {
            throw new UsageException("--credential-timeout must be at least 1 (seconds)");
        }
    }

    /** The credential of the hand-over line: for this host, naming its engine. */
    static HostCredential handedOver(String line, String hostId) throws UsageException {
        HostCredential c;
        try {
            c = HostCredential.parseLine(line, "the line on standard input (--credential-stdin)");
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
        if (!c.hostId().equals(hostId)) {
            throw new UsageException("the credential on standard input is for host " + c.hostId() + ", this host is "
                    + hostId + " (--host-id)");
        }
        if (c.engineUrl() == null) {
            throw new UsageException("the credential on standard input names no engine (its engine= line)");
        }
        return c;
    }

    /** The credential from the file, else from the environment's text, else {@code null}. */
    static HostCredential credential(Path file, String environmentText) throws UsageException {
        try {
            if (file != null) {
                return HostCredential.readPrivate(file);
            }
            if (environmentText != null && !environmentText.isBlank()) {
                return HostCredential.parse(environmentText, "$" + HostCredential.ENV);
            }
            return null;
        } catch (IOException e) {
            throw new UsageException("cannot use the credential file: " + e.getMessage());
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
    }

    /** Publishes the hand-written {@link RankProgram} class {@code className} as service type {@code name} ({@code --service}). */
    static void publish(ServiceHost host, String name, String className) throws Exception {
        Class<?> c = Class.forName(className);
        if (!RankProgram.class.isAssignableFrom(c)) {
            throw new UsageException(className + " is not a " + RankProgram.class.getName());
        }
        host.registerServiceType(name, () -> newProgram(c));
    }

    private static RankProgram newProgram(Class<?> c) {
        try {
            return (RankProgram) c.getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot create " + c.getName() + ": " + e, e);
        }
    }

    /** A TCP port: 0 (any free port) to 65535. */
    private static int port(Arguments a, String option) throws UsageException {
        String v = a.value(option);
        int port;
        try {
            port = Integer.parseInt(v);
        } catch (NumberFormatException e) {
            port = -1;
        }
        if (port < 0 || port > 65535) {
            throw new UsageException(option + " needs a port number within 0..65535 (0: any free port), got '" + v + "'");
        }
        return port;
    }
}
