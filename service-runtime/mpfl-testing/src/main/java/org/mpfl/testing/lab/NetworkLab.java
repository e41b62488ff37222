package org.mpfl.testing.lab;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.mpfl.testing.childjvm.ChildJvm;
import org.mpfl.testing.Http;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.mpfl.protocol.launch.NetworkNamespaces;
import org.mpfl.protocol.launch.NetworkNamespaces.Result;
import org.mpfl.protocol.launch.HostProcess;
import org.mpfl.protocol.HostCredential;
import org.mpfl.protocol.launch.HostProcesses;
import org.mpfl.protocol.tls.TlsSettings;
import org.mpfl.ir.files.FileTrees;
import org.mpfl.testing.LabPki;
import org.mpfl.testing.MpflcCall;

/**
 * A small network of "machines" on this one machine, for tests of MPFL across machines: network
 * namespaces made with {@code ip netns}, joined by veth pairs to a bridge that lives in a namespace of
 * its own (the "switch"), with addresses in {@value #SUBNET}0/24 that exist only inside those
 * namespaces. Nothing touches the machine's own interfaces, and no traffic leaves the lab: the test
 * JVM reaches a node's view of the network through that node's {@link NamespaceRelay} (over a
 * Unix-domain socket), which only connects to lab addresses.
 *
 * <p>In the lab: the engine ({@code mpflc up --hosts 0 --bind ADDR}) in node {@code eng}, N service
 * hosts ({@code mpflc host --engine URL --bind ADDR}, started by the one launcher
 * {@link HostProcesses}) in nodes {@code h1…hN}, an {@code atk} node for attacks, and any further
 * hosts a test {@linkplain #addHost adds} (e.g. one to kill). Everything the lab made carries the
 * prefix {@code mpfl-lab-<pid>-<n>-}: {@link #close} stops every process, asserts that no process is
 * left in any of its namespaces, and deletes them (also when start-up failed); the next lab removes
 * what a crashed JVM left (prefix with a dead pid).
 *
 * <p>Needs root and {@code ip} (iproute2); {@code iptables} for {@link LabNode#dropTcp}. Where they are
 * missing, {@link #start} fails naming what is missing, unless {@code MPFL_SKIP_NETNS=1} is set, in
 * which case the tests are skipped with that message.
 *
 * <p>Over 600 lines on purpose: it is one life cycle — namespaces, the engine process, hosts, sites and
 * their relay — whose {@link #close} must account for everything the lab started, in the order it
 * started it; splitting it would hand that bookkeeping between classes. What stands alone lives beside
 * it: {@link LabNode} (a namespace and how to reach into it), {@link LabFirewall}, {@link SiteNetwork}
 * (gateways, NAT, shaping) and {@link NamespaceRelay}.
 *
 * <pre>{@code
 * lab = NetworkLab.builder().hosts(3).hostService("wait", WaitingProgram.class).start();
 * lab.http().get(lab.engineUrl(lab.attacker()) + "/api/runs");   // from the attacker's address
 * lab.close();                                             // asserts no process is left
 * }</pre>
 */
public final class NetworkLab implements AutoCloseable {
    /** Every namespace, directory and relay socket of a lab starts with this. */
    public static final String PREFIX = "mpfl-lab-";
    /** The lab's /24: addresses exist only inside the lab's namespaces. */
    public static final String SUBNET = "10.77.0.";
    /** Every lab address starts with this (the WAN is {@value #SUBNET}0/24, site K is 10.77.K.0/24). */
    static final String LAB_PREFIX = "10.77.";
    /** Set to {@code 1} to skip (not fail) the multi-host tests where namespaces cannot be made. */
    public static final String SKIP_ENV = "MPFL_SKIP_NETNS";
    /** The engine's port inside its namespace (every namespace has its own ports). */
    public static final int ENGINE_PORT = 8080;
    private static final Pattern LAB_NAME = Pattern.compile(Pattern.quote(PREFIX) + "(\\d+)-\\d+-.*");
    static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(30);
    private static final AtomicInteger LABS = new AtomicInteger();
    private static final List<String> JVM = ChildJvm.shortLivedOptions("512m");
    /**
     * {@code mpflc}'s entry point, named rather than referenced: the lab sits below the engine (the
     * engine's own tests use it) and starts it as a process on the caller's class path, which holds the
     * engine (as {@code HostProcesses.HOST_MAIN_CLASS} names the host's entry point).
     */
    static final String MPFLC_MAIN_CLASS = "org.mpfl.engine.cli.Mpflc";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String name;
    final Path dir;
    private final Builder config;
    private final String switchNs;
    private final Map<String, LabNode> nodes = new ConcurrentHashMap<>();
    private final List<Host> hosts = new CopyOnWriteArrayList<>();
    private final List<String> madeNamespaces = new CopyOnWriteArrayList<>();
    private final Thread shutdownHook;
    private Process engine;
    private Path engineLog;
    private SiteNetwork siteNetwork;
    private int relayStarts;
    /** Each node's certificate options ({@code --tls-cert …}), issued once per node: a restart keeps its certificate. */
    private final Map<String, List<String>> nodeTls = new ConcurrentHashMap<>();
    private Process relay;
    private Path relayLog;
    private int engineStarts;
    private String token;
    /** The lab CA when the lab runs over TLS ({@link Builder#tls}), else null. */
    private LabPki pki;
    /** REST client of the test JVM: trusts the lab CA when the lab runs over TLS. */
    private Http.Client http = Http.PLAIN;
    private volatile boolean closed;

    private NetworkLab(Builder config) throws IOException {
        this.config = config;
        this.name = PREFIX + ProcessHandle.current().pid() + "-" + LABS.incrementAndGet();
        this.dir = Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir"), name));
        this.switchNs = name + "-sw";
        this.shutdownHook = new Thread(this::stopQuietly, name + "-stop");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** How the lab is made. */
    public static final class Builder {
        private int hostCount = 3;
        private int capacity = 1;
        private final Map<String, String> services = new LinkedHashMap<>();
        private final List<String> engineArgs = new ArrayList<>();
        private final List<String> engineJvm = new ArrayList<>(JVM);
        private HostSetup hostSetup = HostSetup.OWN_CREDENTIAL_IN_ENVIRONMENT;
        private Duration startTimeout = Duration.ofSeconds(120);
        private boolean tls;
        private int sites;
        private boolean sitesReachable;
        private String wanRate = "100mbit";

        public Builder hosts(int n) {
            hostCount = n;
            return this;
        }

        /** Each host's {@code --capacity} (1 by default, so a run of N ≥ hosts ranks uses every host). */
        public Builder capacity(int n) {
            capacity = n;
            return this;
        }

        /** A hand-written {@code RankProgram} published on every host ({@code --service NAME=CLASS}). */
        public Builder hostService(String serviceName, Class<?> program) {
            services.put(serviceName, program.getName());
            return this;
        }

        /** Further {@code mpflc up} options for the engine. */
        public Builder engineArgs(String... args) {
            engineArgs.addAll(List.of(args));
            return this;
        }

        /**
         * A system property of the engine's JVM ({@code -Dname=value}), e.g. one of its {@code mpfl.engine.*}
         * settings (docs/cli.md) that {@code mpflc up} has no option for.
         */
        public Builder engineProperty(String name, String value) {
            engineJvm.add("-D" + name + "=" + value);
            return this;
        }

        /** How each host gets its credentials and extra options (see {@link HostSetup}). */
        public Builder hostSetup(HostSetup setup) {
            hostSetup = setup;
            return this;
        }

        /**
         * Everything over TLS from a lab CA ({@link LabPki}): the engine serves https with a
         * certificate for its lab address and 127.0.0.1 (the test JVM reaches it through a relay on
         * loopback), each host serves its SOAP server over https with a certificate for its lab
         * address on SOAP and on the binary channel alike (both over TLS), and every
         * client of the lab (hosts, {@code mpflc run}, {@link #http()}) trusts that CA only.
         */
        public Builder tls() {
            tls = true;
            return this;
        }

        /**
         * Sites instead of one flat network ({@link SiteNetwork}): {@code siteCount} sites of
         * {@code hostsPerSite} hosts each ({@code s1h1}, {@code s1h2}, {@code s2h1}…), each site behind a
         * NAT gateway that admits no connection from outside, and a relay ({@code mpflc relay} in node
         * {@code rly}, {@value SiteNetwork#RELAY_PORT}) to which every host holds a connection.
         */
        public Builder sites(int siteCount, int hostsPerSite) {
            sites = siteCount;
            hostCount = hostsPerSite;
            return this;
        }

        /** With {@link #sites}: the gateways route both ways, no NAT, no relay (the "direct" variant). */
        public Builder sitesReachable() {
            sitesReachable = true;
            return this;
        }

        /** With {@link #sites}: the tbf rate of the WAN links (default 100mbit). */
        public Builder wanRate(String rate) {
            wanRate = rate;
            return this;
        }

        public Builder startTimeout(Duration d) {
            startTimeout = d;
            return this;
        }

        /** Makes the lab and starts the engine and the hosts; on any failure removes what it made. */
        public NetworkLab start() throws Exception {
            requireNamespaces();
            removeLeftovers();
            NetworkLab lab = new NetworkLab(this);
            try {
                lab.build();
                return lab;
            } catch (Exception | Error e) {
                try {
                    lab.close();
                } catch (RuntimeException | Error cleanup) {
                    e.addSuppressed(cleanup);
                }
                throw e;
            }
        }
    }

    /**
     * What a host needs beyond the lab's own options. The default enrols each host as an
     * administrator would ({@code mpflc host-token}: {@code POST /api/registry/credentials} with the
     * admin token, from the engine's machine) and hands the host its own credential in its
     * environment, as {@code mpflc up} does for local hosts.
     */
    @FunctionalInterface
    public interface HostSetup {
        /** Each host gets a credential of its own (host id = node name) in {@code MPFL_HOST_CREDENTIAL}. */
        HostSetup OWN_CREDENTIAL_IN_ENVIRONMENT = (lab, node, launcher) ->
                launcher.environment(HostCredential.ENV, lab.issueCredential(node.name()));

        /** Adds environment variables, files, host options to the launcher of the host in {@code node}. */
        void configure(NetworkLab lab, LabNode node, HostProcesses.Builder launcher) throws Exception;
    }

    // ---------------------------------------------------------------- preconditions and leftovers

    /**
     * Fails (or, with {@value #SKIP_ENV}=1, skips) unless this JVM can make network namespaces: root,
     * {@code ip} on the path.
     */
    static void requireNamespaces() {
        String missing = NetworkNamespaces.missing();
        if (missing == null) {
            return;
        }
        String message = "the multi-host tests need to create network namespaces, which needs " + missing
                + "; set " + SKIP_ENV + "=1 to skip them where that is impossible";
        if ("1".equals(System.getenv(SKIP_ENV))) {
            Assumptions.abort(message);
        }
        throw new IllegalStateException(message);
    }

    /** Removes the namespaces (and their processes) and directories of labs whose JVM is gone. */
    static void removeLeftovers() throws IOException {
        NetworkNamespaces.removeLeftovers(PREFIX);
        try (var dirs = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            for (Path d : dirs.toList()) {
                Matcher m = LAB_NAME.matcher(d.getFileName().toString() + "-");
                if (m.matches() && ProcessHandle.of(Long.parseLong(m.group(1))).isEmpty()) {
                    FileTrees.delete(d);
                }
            }
        }
    }

    // ---------------------------------------------------------------- building

    private void build() throws Exception {
        LabPhases phases = new LabPhases(name);
        madeNamespaces.add(switchNs);
        NetworkNamespaces.addSwitch(switchNs);
        LabNode eng = node("eng", SUBNET + 10);
        LabNode atk = node("atk", SUBNET + 66);
        if (config.tls) {
            pki = LabPki.create(dir.resolve("pki"), "lab");
            // 20 s, not 5: with two labs building side by side (Failsafe's two JVMs) the engine's namespace answered a
            // connect later than 5 s once at load ~30 (a sites lab's build, now SiteAdmissionTest's); a bound against a hang only
            http = new Http.Client(TlsSettings.fromOptions(Map.of(TlsSettings.CA, pki.caPem().toString()))
                    .httpClient().connectTimeout(Duration.ofSeconds(20)).build());
        }
        List<LabNode> hostNodes = new ArrayList<>();
        List<String> hostArgs = new ArrayList<>();
        if (config.sites > 0) {
            siteNetwork = new SiteNetwork(this, config.sites, config.sitesReachable, config.wanRate);
            List<LabNode> wan = new ArrayList<>(List.of(eng, atk));
            LabNode rly = config.sitesReachable ? null : node("rly", SiteNetwork.RELAY_ADDRESS);
            if (rly != null) {
                wan.add(rly);
            }
            siteNetwork.build(wan);
            if (rly != null) {
                siteNetwork.shape(rly, "p-rly");
                hostArgs.addAll(List.of("--relay", relayAddress()));
            }
            for (int k = 1; k <= config.sites; k++) {
                for (int i = 1; i <= config.hostCount; i++) {
                    hostNodes.add(siteNetwork.siteNode(k, "s" + k + "h" + i, 10 + i));
                }
            }
            phases.done("namespaces, sites, NAT and shaping");
        } else {
            for (int i = 1; i <= config.hostCount; i++) {
                hostNodes.add(node("h" + i, SUBNET + (10 + i)));
            }
            phases.done("namespaces");
        }
        if (config.tls) {
            tlsArguments(eng, "127.0.0.1");
            phases.done("engine certificate");
        }
        CompletableFuture<Void> engineUp = CompletableFuture.runAsync(() -> {
            try {
                startEngine(eng);
            } catch (Exception e) {
                throw new IllegalStateException("the engine did not start: " + e.getMessage(), e);
            }
        }, this::ownThread);
        try {
            issueOthersCertificates(hostNodes, phases);
        } finally {
            try {
                engineUp.join();
            } catch (java.util.concurrent.CompletionException e) {
                throw e.getCause() instanceof Exception x ? x : e;
            }
        }
        phases.done("engine");
        launchTogether(hostNodes, hostArgs, phases);
        phases.done("relay and " + hostNodes.size() + " host JVMs ready");
        awaitRegistered(hosts.stream().map(Host::hostId).toList());
        phases.done("hosts registered");
        phases.report();
    }

    /** Runs a step of the lab's start on a daemon thread of its own (JVM starts mostly wait: no pool bounds them). */
    private void ownThread(Runnable step) {
        Thread t = new Thread(step, name + "-start");
        t.setDaemon(true);
        t.start();
    }

    private void issueOthersCertificates(List<LabNode> hostNodes, LabPhases phases) {
        if (config.tls) {
            // the other nodes' certificates while the engine's JVM starts, all before the hosts start: keytool calls
            // are serialised, and a host JVM waiting for its turn would hold the launch up
            List<LabNode> others = new ArrayList<>(hostNodes);
            if (relayNode() != null) {
                others.add(relayNode());
            }
            others.forEach(this::tlsArguments);
            phases.at("certificates of " + others.size() + " nodes");
        }
    }

    /**
     * Starts the relay (if the lab has one) and every host at once, each JVM from a thread of its own, and
     * waits for all of them: the JVM starts are the biggest share of a lab build, and the hosts need
     * neither the relay nor each other to start (a host's relay link and the relay's first announcement
     * to the engine both retry). The first failure ends the wait: what is still starting is killed in
     * its namespace, what started is kept for {@link #close}, and that failure is thrown.
     */
    private void launchTogether(List<LabNode> hostNodes, List<String> hostArgs, LabPhases phases) throws Exception {
        List<CompletableFuture<?>> all = new ArrayList<>();
        List<CompletableFuture<Host>> starting = new ArrayList<>();
        List<String> startingNamespaces = new ArrayList<>();
        LabNode rly = relayNode();
        if (rly != null) {
            startingNamespaces.add(rly.netns());
            all.add(CompletableFuture.runAsync(() -> {
                try {
                    startRelay(rly);
                } catch (Exception e) {
                    throw new IllegalStateException("the relay did not start: " + e.getMessage(), e);
                }
                phases.at("relay");
            }, this::ownThread));
        }
        for (LabNode n : hostNodes) {
            List<String> args = new ArrayList<>(hostArgs);
            if (config.sites > 0) {
                args.addAll(List.of("--site", n.name().substring(0, n.name().indexOf('h'))));
            }
            startingNamespaces.add(n.netns());
            CompletableFuture<Host> f = CompletableFuture.supplyAsync(() -> {
                Host h = launchHost(n, args);
                phases.at(n.name());
                return h;
            }, this::ownThread);
            starting.add(f);
            all.add(f);
        }
        CompletableFuture<Object> firstFailure = new CompletableFuture<>();
        all.forEach(f -> f.whenComplete((v, e) -> {
            if (e != null) {
                firstFailure.completeExceptionally(e);
            }
        }));
        try {
            CompletableFuture.anyOf(CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)), firstFailure).join();
        } catch (java.util.concurrent.CompletionException e) {
            for (String ns : startingNamespaces) {
                NetworkNamespaces.killAll(ns);
            }
            settle(all);
            throw e.getCause() instanceof Exception x ? x : e;
        } finally {
            for (CompletableFuture<Host> f : starting) {
                if (f.isDone() && !f.isCompletedExceptionally()) {
                    hosts.add(f.join());
                }
            }
        }
    }

    /** Waits (bounded) until every launch has ended, after its processes were killed: none is left for {@link #close} to find. */
    private void settle(List<CompletableFuture<?>> launches) throws InterruptedException {
        long end = System.nanoTime() + config.startTimeout.toNanos();
        for (CompletableFuture<?> f : launches) {
            try {
                f.get(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (ExecutionException | TimeoutException e) {
                // the first failure is what the caller reports; a launch that hangs still has its namespace removed by close
            }
        }
    }

    /** A node's certificate options, issued on first use and kept: its addresses and {@code extraIps} in the SAN. */
    private List<String> tlsArguments(LabNode n, String... extraIps) {
        return nodeTls.computeIfAbsent(n.name(), k -> {
            List<String> ips = new ArrayList<>(List.of(n.address()));
            ips.addAll(List.of(extraIps));
            try {
                return pki.issue(n.name(), ips.toArray(String[]::new)).pemArguments();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    /** Makes a namespace joined to the switch with {@code address}/24 on its {@code eth0}. */
    private LabNode node(String nodeName, String address) throws IOException {
        return node(switchNs, nodeName, address);
    }

    /** A node on the WAN switch (for {@link SiteNetwork}). */
    LabNode wanNode(String nodeName, String address) throws IOException {
        return node(nodeName, address);
    }

    /** The namespace of the WAN switch (the lab's switch). */
    String wanSwitch() {
        return switchNs;
    }

    /** The namespace of site {@code k}'s switch, recorded for removal. */
    String siteSwitch(int k) {
        String ns = name + "-s" + k;
        if (!madeNamespaces.contains(ns)) {
            madeNamespaces.add(ns);
        }
        return ns;
    }

    /** Makes a namespace joined to {@code switchNamespace} with {@code address}/24 on its {@code eth0}. */
    LabNode node(String switchNamespace, String nodeName, String address) throws IOException {
        String ns = name + "-" + nodeName;
        madeNamespaces.add(ns);
        NetworkNamespaces.addNode(switchNamespace, ns, "p-" + nodeName, address);
        LabNode n = new LabNode(this, nodeName, ns, address);
        nodes.put(nodeName, n);
        return n;
    }

    private void startEngine(LabNode eng) throws Exception {
        Path data = Files.createDirectories(dir.resolve("engine"));
        // a restarted engine logs to a file of its own (engine-2.log…): the previous log stays for diagnosis
        engineStarts++;
        engineLog = dir.resolve(engineStarts == 1 ? "engine.log" : "engine-" + engineStarts + ".log");
        List<String> cmd = new ArrayList<>(eng.inside());
        cmd.addAll(ChildJvm.command(config.engineJvm, MPFLC_MAIN_CLASS));
        cmd.addAll(List.of("up", "--hosts", "0",
                "--bind", eng.address(), "--port", Integer.toString(ENGINE_PORT), "--data", data.toString()));
        if (config.tls) {
            cmd.addAll(tlsArguments(eng, "127.0.0.1"));
        }
        cmd.addAll(config.engineArgs);
        engine = startLogged(cmd, engineLog, "MPFL engine and console: ", "the engine");
        token = Files.readString(data.resolve("engine.token")).strip();
    }

    /**
     * Starts {@code cmd} with its output copied to {@code log}; returns once a line starts with
     * {@code readyPrefix} (bounded by the start time-out), else fails with the log's tail.
     */
    private Process startLogged(List<String> cmd, Path log, String readyPrefix, String what) throws IOException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        CompletableFuture<Void> ready = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
                 OutputStream out = Files.newOutputStream(log)) {
                String line;
                while ((line = r.readLine()) != null) {
                    out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
                    out.flush();
                    if (line.startsWith(readyPrefix)) {
                        ready.complete(null);
                    }
                }
            } catch (IOException e) {
                // the process is gone
            }
            ready.completeExceptionally(new IOException(what + " exited before it was ready:\n" + tail(log)));
        }, name + "-out-" + log.getFileName());
        reader.setDaemon(true);
        reader.start();
        try {
            ready.get(config.startTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            p.destroyForcibly();
            throw new IOException(what + " was not ready within " + config.startTimeout + ":\n" + tail(log));
        } catch (java.util.concurrent.ExecutionException e) {
            throw (IOException) e.getCause();
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while " + what + " started");
        }
        return p;
    }

    /** Enrols the relay as an administrator does ({@code mpflc host-token --relay}) and starts it in {@code rly}. */
    private void startRelay(LabNode rly) throws Exception {
        Path credential = dir.resolve("relay.credential");
        if (!Files.exists(credential)) {
            // mode 0600, as mpflc host-token writes it: a relay refuses a credential others may read
            Files.writeString(credential, issueRelayCredential(rly.name()));
            Files.setPosixFilePermissions(credential, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        }
        relayStarts++;
        // a restarted relay logs to a file of its own (relay-2.log…): the killed one's log stays for diagnosis
        relayLog = dir.resolve(relayStarts == 1 ? "relay.log" : "relay-" + relayStarts + ".log");
        List<String> cmd = new ArrayList<>(rly.inside());
        cmd.addAll(ChildJvm.command(JVM, MPFLC_MAIN_CLASS));
        cmd.addAll(List.of("relay", "--credential-file",
                credential.toString(), "--engine", engineUrl(), "--bind", rly.address(),
                "--port", Integer.toString(SiteNetwork.RELAY_PORT)));
        if (config.tls) {
            cmd.addAll(tlsArguments(rly));
        }
        relay = startLogged(cmd, relayLog, "MPFL relay ", "the relay");
    }

    /**
     * Starts the relay again (after a test killed it) with the same credential, address and port, and
     * waits until it is ready; hosts' relay links reconnect by themselves.
     */
    public void restartRelay() throws Exception {
        if (relay != null && relay.isAlive()) {
            throw new IllegalStateException("the relay is still running");
        }
        startRelay(relayNode());
    }

    /** The relay's {@code host:port} on the WAN (a lab with {@link Builder#sites}, not reachable). */
    public String relayAddress() {
        return SiteNetwork.RELAY_ADDRESS + ":" + SiteNetwork.RELAY_PORT;
    }

    /** The relay's node ({@code rly} on the WAN), or null without a relay. */
    public LabNode relayNode() {
        return nodes.get("rly");
    }

    /** The relay process ({@code mpflc relay} in node {@code rly}), or null. */
    public Process relayProcess() {
        return relay;
    }

    /** The relay's log (its output). */
    public Path relayLog() {
        return relayLog;
    }

    /** The gateway node of site {@code k} (1-based) of a lab with {@link Builder#sites}. */
    public LabNode gateway(int k) {
        return siteNetwork.gateway(k);
    }

    /** The site (1-based) of a host of a lab with {@link Builder#sites}: its node is {@code sKhN}. */
    public static int siteOf(Host h) {
        String n = h.node().name();
        return Integer.parseInt(n.substring(1, n.indexOf('h')));
    }

    /** Whether a TCP connection from {@code from}'s node to {@code to}'s SOAP port opens (within 3 s). */
    public boolean connects(Host from, Host to) throws IOException {
        String target = to.node().address() + "/" + to.soapPort();
        Result r = from.node().exec("timeout", "3", "bash", "-c", "exec 3<>/dev/tcp/" + target);
        return r.code() == 0;
    }

    /**
     * Asserts the sites' isolation before a cross-site test: no host of one site opens a TCP
     * connection to a host of another, while hosts of one site do reach each other (so the check
     * itself can tell).
     */
    public void assertSitesIsolated() throws IOException {
        for (Host a : hosts) {
            for (Host b : hosts) {
                if (a == b) {
                    continue;
                }
                boolean sameSite = siteOf(a) == siteOf(b);
                boolean connects = connects(a, b);
                if (connects != sameSite) {
                    throw new AssertionError(a.hostId() + " -> " + b.hostId() + (sameSite
                            ? " (same site) cannot connect" : " (another site) connects: the sites are not isolated"));
                }
            }
        }
    }

    private Host launchHost(LabNode n) {
        return launchHost(n, List.of());
    }

    private Host launchHost(LabNode n, List<String> extraHostArgs) {
        try {
            HostProcesses.Builder b = HostProcesses.builder().count(1).launchPrefix(n.inside())
                    .readyTimeout(config.startTimeout).logDirectory(Files.createDirectories(dir.resolve(n.name())));
            JVM.forEach(b::jvmArg);
            config.services.forEach((s, c) -> List.of("--service", s + "=" + c).forEach(b::hostArg));
            // --oversubscribe: the lab's capacity spreads ranks over the nodes (round robin), it does not bound them;
            // the run queue's bounds are tested without it (RunQueueTest)
            List.of("--engine", engineUrl(), "--bind", n.address(), "--host-id", n.name(),
                    "--capacity", Integer.toString(config.capacity), "--oversubscribe").forEach(b::hostArg);
            extraHostArgs.forEach(b::hostArg);
            if (config.tls) {
                tlsArguments(n).forEach(b::hostArg);
            }
            config.hostSetup.configure(this, n, b);
            HostProcesses p = b.start();
            return new Host(n, p);
        } catch (Exception e) {
            throw new IllegalStateException("service host " + n.name() + " did not start: " + e.getMessage(), e);
        }
    }

    /**
     * Adds one more host in a namespace of its own (e.g. a victim to kill or cut off) and waits until
     * the engine has registered it. Names must be new and short ({@code v1}…).
     */
    public Host addHost(String nodeName, int lastOctet) throws Exception {
        Host h = launchHost(node(nodeName, SUBNET + lastOctet));
        hosts.add(h);
        awaitRegistered(List.of(h.hostId()));
        return h;
    }

    /** Stops a host added with {@link #addHost} and deletes its namespace. */
    public void removeHost(Host h) throws IOException {
        h.processes().close();
        hosts.remove(h);
        LabNode n = nodes.remove(h.node().name());
        n.closeRelay();
        List<Long> left = NetworkNamespaces.pids(n.netns());
        NetworkNamespaces.killAll(n.netns());
        NetworkNamespaces.ip("netns", "del", n.netns());
        madeNamespaces.remove(n.netns());
        if (!left.isEmpty()) {
            throw new AssertionError("processes " + left + " were still running in " + n.netns() + " after its host stopped");
        }
    }

    /** Waits until the engine lists these hosts. */
    public void awaitRegistered(List<String> hostIds) throws Exception {
        long end = System.nanoTime() + config.startTimeout.toNanos();
        String seen = "";
        while (System.nanoTime() < end) {
            Http.Answer a = adminGet("/api/registry/hosts");
            seen = a.body();
            List<String> ids = new ArrayList<>();
            a.json().forEach(h -> ids.add(h.path("hostId").asText()));
            if (ids.containsAll(hostIds)) {
                return;
            }
            Thread.sleep(200);
        }
        throw new IOException("hosts " + hostIds + " not registered within " + config.startTimeout + "; registry: " + seen
                + "\n" + logs());
    }

    // ---------------------------------------------------------------- what tests use

    /** The engine's base URL inside the lab ({@code http://10.77.0.10:8080}, https over TLS). */
    public String engineUrl() {
        return scheme() + "://" + engineNode().address() + ":" + ENGINE_PORT;
    }

    /**
     * A loopback URL of this JVM that reaches the engine from {@code from}'s address (over TLS the
     * engine's certificate names 127.0.0.1 too, so the name checks).
     */
    public String engineUrl(LabNode from) throws IOException {
        InetSocketAddress a = from.reach(engineNode().address(), ENGINE_PORT);
        return scheme() + "://127.0.0.1:" + a.getPort();
    }

    /** {@code https} when the lab runs over TLS, else {@code http}. */
    public String scheme() {
        return config.tls ? "https" : "http";
    }

    /** Whether the lab runs over TLS ({@link Builder#tls}). */
    public boolean tls() {
        return config.tls;
    }

    /** The lab CA's certificate (PEM) when the lab runs over TLS. */
    public Path caPem() {
        if (pki == null) {
            throw new IllegalStateException("the lab runs without TLS");
        }
        return pki.caPem();
    }

    /** The REST client of the test JVM for the lab: over TLS it trusts the lab CA (and nothing else). */
    public Http.Client http() {
        return http;
    }

    /** The engine's admin token (read from its data directory, never passed on a command line). */
    public String token() {
        return token;
    }

    /** The lab's own directory (logs, PKI, data), deleted by {@link #close}. */
    public Path directory() {
        return dir;
    }

    /** The engine's data directory ({@code mpflc run --data DIR} finds the token there). */
    public Path engineData() {
        return dir.resolve("engine");
    }

    public LabNode engineNode() {
        return nodes.get("eng");
    }

    /** The attacker's node: a lab address that is neither the engine nor a host. */
    public LabNode attacker() {
        return nodes.get("atk");
    }

    /**
     * A further machine on the lab's network ({@value #SUBNET}{@code lastOctet}) with nothing running in it: a
     * client address of its own besides the {@linkplain #attacker attacker's} (reach through it with
     * {@link LabNode#connect}); {@link #close} removes it with the rest of the lab.
     */
    public LabNode addNode(String nodeName, int lastOctet) throws IOException {
        return node(nodeName, SUBNET + lastOctet);
    }

    /** The hosts the lab started with, then those added. */
    public List<Host> hosts() {
        return List.copyOf(hosts);
    }

    public Host host(String hostId) {
        return hosts.stream().filter(h -> h.hostId().equals(hostId)).findFirst().orElseThrow();
    }

    /**
     * Issues a host credential for {@code hostId} as an administrator on the engine's machine does
     * ({@code POST /api/registry/credentials} with the admin token) and returns its text form (what
     * {@code mpflc host-token} writes to a join file).
     */
    public String issueCredential(String hostId) throws Exception {
        return issue(Map.of("hostId", hostId));
    }

    /** Issues a relay's credential for {@code relayId} ({@code mpflc host-token --relay --host-id ID}); its text form. */
    public String issueRelayCredential(String relayId) throws Exception {
        return issue(Map.of("hostId", relayId, "kind", "relay"));
    }

    private String issue(Map<String, String> body) throws Exception {
        String hostId = body.get("hostId");
        // 60 s, not Http's 10: the lab engine's first requests (a JVM just started, TLS, C1) took longer at load ~28 on 2
        // cores, and the host (MultiHostSamplesTest's h2, SitesLabBenchTest's s1h1) "did not start: request timed out";
        // a bound against a hang only
        // sent again while the engine closes the connection without an answer (CrossSiteFaultsTest at load ~20: "service
        // host s2h2 did not start: HTTP/1.1 header parser received no bytes", a keep-alive connection closed as the request
        // went out); a credential issued twice for one host is harmless (the first is never used)
        Http.Answer a = http.sendUntilAnswered("POST", engineUrl(engineNode()) + "/api/registry/credentials", "Bearer " + token(),
                body, Duration.ofSeconds(60), Duration.ofSeconds(120));
        if (a.status() != 201) {
            throw new IOException("the engine did not issue a credential for " + hostId + ": " + a);
        }
        return a.json().path("credential").asText();
    }

    /**
     * Runs a document as a user on the engine's machine does — {@code mpflc run DOC --engine URL
     * --data DIR --json --param …} (the token read from the engine's data directory) — and returns its
     * JSON summary; an assertion error with the command's output and the lab's logs if there is none.
     */
    public JsonNode runDocument(Path document, String... params) throws Exception {
        return runDocument(document, List.of(), params);
    }

    /** {@link #runDocument(Path, String...)} with more options of {@code mpflc run} (e.g. {@code --sites s1}). */
    public JsonNode runDocument(Path document, List<String> options, String... params) throws Exception {
        List<String> args = new ArrayList<>(List.of("run", document.toString(), "--engine", engineUrl(engineNode()),
                "--data", engineData().toString(), "--json", "--timeout", "180"));
        args.addAll(options);
        if (config.tls) {
            args.addAll(List.of("--" + TlsSettings.CA, caPem().toString()));
        }
        for (String p : params) {
            args.add("--param");
            args.add(p);
        }
        MpflcCall call = MpflcCall.run(args.toArray(String[]::new));
        if (call.out().isBlank()) {
            throw new AssertionError("mpflc run " + document + " printed no summary (exit " + call.exit() + "): "
                    + call.err() + "\n" + logs());
        }
        return JSON.readTree(call.out());
    }

    /** A run's detail as the engine's REST API gives it ({@code GET /api/runs/ID}, read from the engine's node). */
    public JsonNode run(String runId) throws Exception {
        return adminGet("/api/runs/" + runId).json();
    }

    /**
     * A read of the engine's REST API from the engine's node with the admin token: an engine on a
     * non-loopback address serves no anonymous read (docs/security.md, "Users, roles and projects").
     */
    public Http.Answer adminGet(String path) throws Exception {
        return http.send("GET", engineUrl(engineNode()) + path, "Bearer " + token, null);
    }

    /** The ids of the hosts a run's ranks were placed on (from its detail's {@code ranks[].host}). */
    public java.util.Set<String> placement(String runId) throws Exception {
        java.util.Set<String> used = new java.util.TreeSet<>();
        run(runId).path("ranks").forEach(r -> used.add(r.path("host").asText()));
        return used;
    }

    /**
     * SIGKILL of the engine process (no goodbye: its data directory stays as the crash left it);
     * waits (bounded) until it is gone.
     */
    public void killEngine() throws InterruptedException {
        engine.destroyForcibly();
        if (!engine.waitFor(15, TimeUnit.SECONDS)) {
            throw new AssertionError("the engine process did not die within 15 s of SIGKILL");
        }
    }

    /**
     * Starts the engine again in its node, on the same address, port and data directory (as an
     * operator restarts a crashed engine); returns once it serves. Hosts find it by themselves.
     */
    public void restartEngine() throws Exception {
        if (engine != null && engine.isAlive()) {
            throw new IllegalStateException("the engine still runs");
        }
        startEngine(engineNode());
    }

    /** The engine process (the {@code mpflc up} JVM). */
    public Process engineProcess() {
        return engine;
    }

    /** The last lines of every log of the lab, for assertion messages. */
    public String logs() {
        StringBuilder b = new StringBuilder();
        for (int i = 1; i <= engineStarts; i++) {
            Path log = dir.resolve(i == 1 ? "engine.log" : "engine-" + i + ".log");
            b.append(i == 1 ? "engine log:\n" : "\nlog of engine start " + i + ":\n").append(tail(log));
        }
        for (Host h : hosts) {
            b.append("\nhost ").append(h.hostId()).append(" log:\n").append(tail(h.process().log()));
        }
        if (relayLog != null) {
            b.append("\nrelay log:\n").append(tail(relayLog));
        }
        return b.toString();
    }

    // ---------------------------------------------------------------- stopping

    private void stopQuietly() {
        try {
            stop();
        } catch (IOException | RuntimeException e) {
            System.err.println("network lab " + name + ": " + e);
        }
    }

    /** Stops every process and returns what was still running in the namespaces afterwards. */
    private synchronized Map<String, List<Long>> stop() throws IOException {
        Map<String, List<Long>> leftovers = new LinkedHashMap<>();
        if (closed) {
            return leftovers;
        }
        closed = true;
        for (Host h : hosts) {
            h.processes().close();
        }
        if (relay != null) {
            relay.destroyForcibly();
        }
        if (engine != null) {
            engine.destroy();
            try {
                if (!engine.waitFor(15, TimeUnit.SECONDS)) {
                    engine.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                engine.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
        for (LabNode n : nodes.values()) {
            n.closeRelay();
        }
        for (String ns : List.copyOf(madeNamespaces)) {
            List<Long> left = NetworkNamespaces.pids(ns);
            if (!left.isEmpty()) {
                leftovers.put(ns, left);
                NetworkNamespaces.killAll(ns);
            }
            if (NetworkNamespaces.delete(ns)) {
                madeNamespaces.remove(ns);
            }
        }
        return leftovers;
    }

    /**
     * Stops the hosts and the engine, deletes the namespaces and the lab's directory, and fails if a
     * process was still running in a namespace after its owner was stopped, or a namespace could not
     * be deleted.
     */
    @Override
    public void close() {
        Map<String, List<Long>> leftovers;
        try {
            leftovers = stop();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // the JVM is shutting down: the hook stops the lab (stop is idempotent)
        }
        if (!leftovers.isEmpty()) {
            throw new AssertionError("processes left running in the lab's namespaces after stopping it (killed now): "
                    + leftovers);
        }
        if (!madeNamespaces.isEmpty()) {
            throw new AssertionError("namespaces could not be deleted: " + madeNamespaces);
        }
        try {
            FileTrees.delete(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ---------------------------------------------------------------- nodes and hosts

    /** A service host of the lab: its node and its process. */
    public static final class Host {
        private final LabNode node;
        private final HostProcesses processes;

        Host(LabNode node, HostProcesses processes) {
            this.node = node;
            this.processes = processes;
        }

        public LabNode node() {
            return node;
        }

        public String hostId() {
            return process().hostId();
        }

        public HostProcess process() {
            return processes.get(0);
        }

        HostProcesses processes() {
            return processes;
        }

        /** The port of the host's binary channel (from its ready line). */
        public int binaryPort() {
            String a = process().binaryAddress();
            return Integer.parseInt(a.substring(a.lastIndexOf(':') + 1));
        }

        /** The port of the host's SOAP server. */
        public int soapPort() {
            String u = process().baseUrl();
            return Integer.parseInt(u.substring(u.lastIndexOf(':') + 1).replace("/", ""));
        }

        /** SIGKILL: the host dies at once, with no goodbye. */
        public void kill() {
            process().process().destroyForcibly();
        }

        /**
         * The names of the rank threads running in this host now ({@code mpfl-rank-…}), as Linux keeps
         * them: the first 15 characters ({@code /proc/PID/task/TID/comm}, which the JVM sets from the
         * thread's name when it starts it); empty when the host process has ended. Read from /proc, not
         * with {@code jcmd PID Thread.print}: a jcmd is a JVM start (about 0.4 s of CPU) per host per poll,
         * and the tests poll this until the ranks end. /proc needs no link to the host's namespace either.
         */
        public List<String> rankThreads() throws IOException {
            Process p = process().process();
            List<String> out = new ArrayList<>();
            try (var tasks = Files.newDirectoryStream(Path.of("/proc", Long.toString(p.pid()), "task"))) {
                for (Path task : tasks) {
                    String name;
                    try {
                        name = Files.readString(task.resolve("comm"), StandardCharsets.UTF_8).strip();
                    } catch (IOException ended) { // the thread ended between the listing and the read
                        continue;
                    }
                    if (name.startsWith("mpfl-rank-")) {
                        out.add(name);
                    }
                }
            } catch (IOException e) {
                if (!p.isAlive()) {
                    return List.of();
                }
                throw e;
            }
            return p.isAlive() ? out : List.of();
        }

        @Override
        public String toString() {
            return hostId() + " at " + node.address();
        }
    }

    // ---------------------------------------------------------------- commands

    /** The last 30 lines of a process's log (for failure messages). */
    public static String tail(Path log) {
        if (log == null) {
            return "(no log)";
        }
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }
}
