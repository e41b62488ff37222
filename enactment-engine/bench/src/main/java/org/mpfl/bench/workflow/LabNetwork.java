package org.mpfl.bench.workflow;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The "machines" of {@code mpflc bench lab}: network namespaces made with {@code ip netns}, each joined
 * by a veth pair to a bridge in a namespace of its own (the switch), with addresses in
 * {@value #SUBNET}0/24 that exist only inside them; the link of every node is shaped in both directions
 * with a {@code tbf} qdisc at the given rate (its {@code eth0} and its port on the switch). Nothing
 * touches this machine's own interfaces: all traffic stays inside the namespaces. The same approach as
 * the engine tests' {@code NetworkLab} (which also runs an attacker, relays and TLS, none of which a
 * benchmark needs), with a prefix and a subnet of its own ({@value #PREFIX}, not the tests' 10.77.0.0/24)
 * so that a benchmark and the multi-host tests can run at the same time.
 *
 * <p>{@link #close} kills every process left in its namespaces and deletes them; it is idempotent and
 * also runs from a shutdown hook (Ctrl-C). {@link #create} first removes what an earlier benchmark
 * whose JVM died left behind (namespaces named with a dead pid).
 */
final class LabNetwork implements AutoCloseable {
    /** Every namespace of a benchmark lab starts with this, then the pid of the JVM that made it. */
    static final String PREFIX = "mpfl-bench-";
    /** The lab's /24 (addresses exist only inside the lab's namespaces). */
    static final String SUBNET = "10.78.0.";
    private static final Pattern LAB_NAME = Pattern.compile(Pattern.quote(PREFIX) + "(\\d+)-.*");
    private static final Pattern RATE = Pattern.compile("(\\d+(?:\\.\\d+)?)(bit|kbit|mbit|gbit|tbit)", Pattern.CASE_INSENSITIVE);
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(30);
    private static final int ENGINE_OCTET = 10;
    private static final java.util.concurrent.atomic.AtomicInteger LABS = new java.util.concurrent.atomic.AtomicInteger();

    /** One "machine": a namespace with one address on the lab's switch. */
    record Node(String name, String netns, String address) {
        /** The words that run a command inside this node (they exec it: the pid stays the command's). */
        List<String> inside() {
            return List.of("ip", "netns", "exec", netns);
        }
    }

    private final String name;
    private final List<String> made = new CopyOnWriteArrayList<>();
    private final List<Node> hosts = new ArrayList<>();
    private final Thread shutdownHook;
    private Node engine;
    private boolean closed;

    private LabNetwork() {
        this.name = PREFIX + ProcessHandle.current().pid() + "-" + LABS.incrementAndGet();
        this.shutdownHook = new Thread(this::closeQuietly, name + "-stop");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /**
     * What this process lacks to make the lab, in words ({@code root}, {@code ip}, {@code tc} when
     * shaping), or null when nothing is missing.
     */
    static String missing(boolean shaping) {
        try {
            String uid = exec(List.of("id", "-u")).strip();
            if (!uid.equals("0")) {
                return "root (this runs as uid " + uid + "): it creates network namespaces";
            }
        } catch (IOException e) {
            return "the 'id' command (" + e.getMessage() + ")";
        }
        if (!works(List.of("ip", "netns", "list"))) {
            return "a working 'ip netns' (iproute2: apt-get install iproute2)";
        }
        if (shaping && !works(List.of("tc", "qdisc", "show", "dev", "lo"))) {
            return "iproute2's 'tc' with the tbf qdisc to shape the links (apt-get install iproute2), or --rate none";
        }
        return null;
    }

    private static boolean works(List<String> cmd) {
        try {
            return run(cmd).code() == 0;
        } catch (IOException e) {
            return false;
        }
    }

    /** Bits per second of a tc rate ({@code 1gbit}, {@code 100mbit}), or a usage problem as an exception. */
    static long bitsPerSecond(String rate) {
        Matcher m = RATE.matcher(rate.strip());
        if (!m.matches()) {
            throw new IllegalArgumentException("a rate is a number with bit, kbit, mbit, gbit or tbit (as tc writes it), e.g. 1gbit");
        }
        double n = Double.parseDouble(m.group(1));
        double unit = switch (m.group(2).toLowerCase(Locale.ROOT)) {
            case "kbit" -> 1e3;
            case "mbit" -> 1e6;
            case "gbit" -> 1e9;
            case "tbit" -> 1e12;
            default -> 1;
        };
        long bps = (long) (n * unit);
        if (bps < 8_000) {
            throw new IllegalArgumentException("a rate below 8kbit leaves the lab too slow to start");
        }
        return bps;
    }

    /**
     * Makes the switch, the engine's node ({@value #SUBNET}10) and {@code hostCount} host nodes
     * (.11, .12, …), each link shaped to {@code rate} unless it is null; on failure removes what it made.
     */
    static LabNetwork create(int hostCount, String rate, PrintStream progress) throws IOException {
        if (hostCount > 200) {
            throw new IllegalArgumentException("at most 200 hosts fit the lab's /24");
        }
        removeLeftovers(progress);
        LabNetwork lab = new LabNetwork();
        try {
            String sw = lab.namespace("sw");
            lab.ip("-n", sw, "link", "add", "br0", "type", "bridge");
            lab.ip("-n", sw, "link", "set", "br0", "up");
            lab.engine = lab.node("eng", SUBNET + ENGINE_OCTET, rate);
            for (int i = 1; i <= hostCount; i++) {
                lab.hosts.add(lab.node("h" + i, SUBNET + (ENGINE_OCTET + i), rate));
            }
            return lab;
        } catch (IOException | RuntimeException e) {
            lab.closeQuietly();
            throw e;
        }
    }

    Node engine() {
        return engine;
    }

    List<Node> hosts() {
        return List.copyOf(hosts);
    }

    private String namespace(String suffix) throws IOException {
        String ns = name + "-" + suffix;
        ip("netns", "add", ns);
        made.add(ns);
        return ns;
    }

    private Node node(String nodeName, String address, String rate) throws IOException {
        String ns = namespace(nodeName);
        String sw = name + "-sw";
        String port = "p-" + nodeName;
        ip("link", "add", "eth0", "netns", ns, "type", "veth", "peer", "name", port, "netns", sw);
        ip("-n", sw, "link", "set", port, "master", "br0");
        ip("-n", sw, "link", "set", port, "up");
        ip("-n", ns, "addr", "add", address + "/24", "dev", "eth0");
        ip("-n", ns, "link", "set", "eth0", "up");
        ip("-n", ns, "link", "set", "lo", "up");
        if (rate != null) {
            // both directions: what the node sends (its eth0) and what it receives (its port on the switch)
            shape(ns, "eth0", rate);
            shape(sw, port, rate);
        }
        return new Node(nodeName, ns, address);
    }

    /**
     * A token bucket at {@code rate} on one interface. The bucket holds at least one timer tick's worth
     * of bytes at that rate (rate/250 at HZ 250, as tc-tbf(8) advises, else the rate is not reached) and
     * at least 128 KiB so that a 64 KiB segmentation-offload packet of the veth always fits; packets
     * wait at most 50 ms in its queue.
     */
    private void shape(String ns, String dev, String rate) throws IOException {
        long burst = Math.max(bitsPerSecond(rate) / 8 / 250, 128 * 1024);
        List<String> cmd = List.of("tc", "-n", ns, "qdisc", "add", "dev", dev, "root", "tbf", "rate", rate,
                "burst", Long.toString(burst), "latency", "50ms");
        Result r = run(cmd);
        if (r.code() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed (" + r.code() + "): " + r.out().strip());
        }
    }

    /** The qdisc of a node's eth0 as {@code tc} shows it (what the benchmark reports as the link). */
    String qdisc(Node n) throws IOException {
        return run(List.of("tc", "-n", n.netns(), "qdisc", "show", "dev", "eth0")).out().strip();
    }

    /** Removes the namespaces (and their processes) of benchmark labs whose JVM is gone. */
    private static void removeLeftovers(PrintStream progress) throws IOException {
        for (String ns : namespaces()) {
            Matcher m = LAB_NAME.matcher(ns);
            if (m.matches() && !ProcessHandle.of(Long.parseLong(m.group(1))).map(ProcessHandle::isAlive).orElse(false)) {
                progress.println("[bench lab] removing " + ns + ", left by an earlier benchmark that died");
                killAll(ns);
                run(List.of("ip", "netns", "del", ns));
            }
        }
    }

    private static List<String> namespaces() throws IOException {
        List<String> out = new ArrayList<>();
        for (String line : exec(List.of("ip", "netns", "list")).split("\n")) {
            if (!line.isBlank()) {
                out.add(line.strip().split("\\s+")[0]);
            }
        }
        return out;
    }

    /** The pids of the processes in a namespace. */
    static List<Long> pids(String ns) throws IOException {
        List<Long> out = new ArrayList<>();
        for (String line : exec(List.of("ip", "netns", "pids", ns)).split("\n")) {
            if (line.strip().matches("\\d+")) {
                out.add(Long.parseLong(line.strip()));
            }
        }
        return out;
    }

    private static void killAll(String ns) throws IOException {
        for (long pid : pids(ns)) {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    private void closeQuietly() {
        try {
            close();
        } catch (IOException | RuntimeException e) {
            System.err.println("[bench lab] cleaning up " + name + ": " + e.getMessage());
        }
    }

    /**
     * Kills whatever still runs in the lab's namespaces (the caller stops its own processes first) and
     * deletes them; fails naming a namespace that could not be deleted.
     */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // the JVM is shutting down: this is the hook
        }
        List<String> left = new ArrayList<>();
        // hosts and the engine first, the switch last (its ports go with the nodes' veth ends)
        List<String> order = new ArrayList<>(made);
        java.util.Collections.reverse(order);
        for (String ns : order) {
            for (int attempt = 0; attempt < 3 && !pids(ns).isEmpty(); attempt++) {
                killAll(ns);
                sleep(200);
            }
            if (run(List.of("ip", "netns", "del", ns)).code() == 0) {
                made.remove(ns);
            } else {
                left.add(ns);
            }
        }
        if (!left.isEmpty()) {
            throw new IOException("could not delete the network namespaces " + left + " (ip netns del NAME removes them)");
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void ip(String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("ip"));
        cmd.addAll(List.of(args));
        Result r = run(cmd);
        if (r.code() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed (" + r.code() + "): " + r.out().strip());
        }
    }

    /** The exit code and the merged output of a command. */
    private record Result(int code, String out) {
    }

    private static String exec(List<String> cmd) throws IOException {
        Result r = run(cmd);
        if (r.code() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed (" + r.code() + "): " + r.out().strip());
        }
        return r.out();
    }

    /** Runs a command, waiting at most {@link #COMMAND_TIMEOUT}; stdin closed, stdout and stderr merged. */
    private static Result run(List<String> cmd) throws IOException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> {
            try {
                return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "";
            }
        });
        try {
            if (!p.waitFor(COMMAND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", cmd) + " did not end within " + COMMAND_TIMEOUT.toSeconds() + " s");
            }
            return new Result(p.exitValue(), out.get(5, TimeUnit.SECONDS));
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted: " + String.join(" ", cmd), e);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            return new Result(p.exitValue(), "");
        }
    }
}
