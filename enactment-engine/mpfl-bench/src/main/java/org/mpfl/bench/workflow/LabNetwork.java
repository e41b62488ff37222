package org.mpfl.bench.workflow;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.mpfl.protocol.launch.NetworkNamespaces;

/**
 * The "machines" of {@code mpflc bench lab}: network namespaces made with {@code ip netns}, each joined
 * by a veth pair to a bridge in a namespace of its own (the switch), with addresses in
 * {@value #SUBNET}0/24 that exist only inside them; the link of every node is shaped in both directions
 * with a {@code tbf} qdisc at the given rate (its {@code eth0} and its port on the switch). Nothing
 * touches this machine's own interfaces: all traffic stays inside the namespaces. The namespaces, the
 * bridge and their removal are the engine's {@link NetworkNamespaces}, as for the engine tests'
 * {@code NetworkLab} (which also runs an attacker, relays and TLS, none of which a benchmark needs); a
 * prefix and a subnet of its own ({@value #PREFIX}, not the tests' 10.77.0.0/24) let a benchmark and the
 * multi-host tests run at the same time.
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
    private static final Pattern RATE = Pattern.compile("(\\d+(?:\\.\\d+)?)(bit|kbit|mbit|gbit|tbit)", Pattern.CASE_INSENSITIVE);
    private static final String TC_MISSING =
            "iproute2's 'tc' with the tbf qdisc to shape the links (apt-get install iproute2), or --rate none";
    private static final int ENGINE_OCTET = 10;
    private static final java.util.concurrent.atomic.AtomicInteger LABS = new java.util.concurrent.atomic.AtomicInteger();

    /** One "machine": a namespace with one address on the lab's switch. */
    record Node(String name, String netns, String address) {
        /** The words that run a command inside this node (they exec it: the pid stays the command's). */
        List<String> inside() {
            return NetworkNamespaces.inside(netns);
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
        String missing = NetworkNamespaces.missing();
        if (missing != null) {
            return missing + ": it creates network namespaces";
        }
        try {
            if (shaping && NetworkNamespaces.exec(List.of("tc", "qdisc", "show", "dev", "lo"), Duration.ofSeconds(10)).code() != 0) {
                return TC_MISSING;
            }
        } catch (IOException e) {
            return TC_MISSING;
        }
        return null;
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
        for (String ns : NetworkNamespaces.removeLeftovers(PREFIX)) {
            progress.println("[bench lab] removed " + ns + ", left by an earlier benchmark that died");
        }
        LabNetwork lab = new LabNetwork();
        try {
            String sw = lab.name + "-sw";
            lab.made.add(sw);
            NetworkNamespaces.addSwitch(sw);
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

    private Node node(String nodeName, String address, String rate) throws IOException {
        String ns = name + "-" + nodeName;
        String sw = name + "-sw";
        String port = "p-" + nodeName;
        made.add(ns);
        NetworkNamespaces.addNode(sw, ns, port, address);
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
        NetworkNamespaces.check(List.of("tc", "-n", ns, "qdisc", "add", "dev", dev, "root", "tbf", "rate", rate,
                "burst", Long.toString(burst), "latency", "50ms"));
    }

    /** The qdisc of a node's eth0 as {@code tc} shows it (what the benchmark reports as the link). */
    String qdisc(Node n) throws IOException {
        return NetworkNamespaces.check(List.of("tc", "-n", n.netns(), "qdisc", "show", "dev", "eth0")).strip();
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
        List<String> exist = NetworkNamespaces.list();
        made.retainAll(exist); // a namespace whose making failed at once is not there to delete
        // hosts and the engine first, the switch last (its ports go with the nodes' veth ends)
        List<String> order = new ArrayList<>(made);
        java.util.Collections.reverse(order);
        for (String ns : order) {
            for (int attempt = 0; attempt < 3 && !NetworkNamespaces.pids(ns).isEmpty(); attempt++) {
                NetworkNamespaces.killAll(ns);
                sleep(200);
            }
            if (NetworkNamespaces.delete(ns)) {
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
}
