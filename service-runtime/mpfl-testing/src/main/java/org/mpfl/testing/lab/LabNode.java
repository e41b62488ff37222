package org.mpfl.testing.lab;

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
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.mpfl.protocol.launch.NetworkNamespaces;
import org.mpfl.testing.childjvm.ChildJvm;
import org.mpfl.protocol.launch.NetworkNamespaces.Result;

/**
 * One "machine" of the lab: a network namespace with one address on the lab's switch.
 */
public final class LabNode {
    private final NetworkLab lab;
    private final String name;
    private final String netns;
    private final String address;
    private final Map<String, Forward> forwards = new ConcurrentHashMap<>();
    private Process relay;
    private Path relaySocket;

    LabNode(NetworkLab lab, String name, String netns, String address) {
        this.lab = lab;
        this.name = name;
        this.netns = netns;
        this.address = address;
    }

    public String name() {
        return name;
    }

    public String netns() {
        return netns;
    }

    /** This node's address in the lab. */
    public String address() {
        return address;
    }

    /** The words that run a command inside this node: {@code ip netns exec NS}. */
    public List<String> inside() {
        return List.of("ip", "netns", "exec", netns);
    }

    /** Runs a command inside this node (bounded) and returns its exit code and output. */
    public Result exec(String... command) throws IOException {
        List<String> cmd = new ArrayList<>(inside());
        cmd.addAll(List.of(command));
        return NetworkNamespaces.exec(cmd, NetworkLab.COMMAND_TIMEOUT);
    }

    /**
     * A loopback address of this JVM whose connections are made from this node to
     * {@code labAddress:port} (through the node's relay): the peer sees this node's address.
     */
    public synchronized InetSocketAddress reach(String labAddress, int port) throws IOException {
        if (!labAddress.startsWith(NetworkLab.LAB_PREFIX)) {
            throw new IllegalArgumentException(labAddress + " is not in the lab");
        }
        Forward f = forwards.get(labAddress + ":" + port);
        if (f == null) {
            f = new Forward(relaySocket(), labAddress, port);
            forwards.put(labAddress + ":" + port, f);
        }
        return f.local();
    }

    /** Connects from this node to {@code labAddress:port}; the caller closes the socket. */
    public java.net.Socket connect(String labAddress, int port) throws IOException {
        java.net.Socket s = new java.net.Socket();
        s.connect(reach(labAddress, port), 5_000);
        return s;
    }

    /**
     * Starts {@code main} in a JVM of its own inside this node (e.g. a rogue server on the
     * attacker's address), output to {@code NAME.log} in the lab's directory; the caller stops it
     * ({@link #close} kills whatever is left in the namespaces).
     */
    public Process startJava(Class<?> main, String logName, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(inside());
        cmd.addAll(ChildJvm.command(ChildJvm.shortLivedOptions("64m"), main.getName()));
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(lab.dir.resolve(logName + ".log").toFile()).start();
    }

    /** Takes this node's link down: like pulling its cable (nothing answers, nothing is refused). */
    public void linkDown() throws IOException {
        NetworkNamespaces.ip("-n", netns, "link", "set", "eth0", "down");
    }

    public void linkUp() throws IOException {
        NetworkNamespaces.ip("-n", netns, "link", "set", "eth0", "up");
    }

    /**
     * A firewall rule in this node dropping incoming TCP to {@code port} (silently, as a firewall
     * does); closing it removes the rule.
     */
    public LabFirewall dropTcp(int port) throws IOException {
        LabFirewall f = new LabFirewall(this, port);
        f.change("-I");
        return f;
    }

    private synchronized Path relaySocket() throws IOException {
        if (relay != null) {
            return relaySocket;
        }
        relaySocket = lab.dir.resolve("relay-" + name + ".sock");
        List<String> cmd = new ArrayList<>(inside());
        cmd.addAll(ChildJvm.command(ChildJvm.shortLivedOptions("32m"), NamespaceRelay.class.getName()));
        cmd.addAll(List.of(relaySocket.toString(), NetworkLab.LAB_PREFIX));
        Path log = lab.dir.resolve("relay-" + name + ".log");
        relay = new ProcessBuilder(cmd).redirectError(log.toFile()).start();
        CompletableFuture<Void> ready = new CompletableFuture<>();
        Process p = relay;
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    if (line.equals(NamespaceRelay.READY)) {
                        ready.complete(null);
                    }
                }
            } catch (IOException e) {
                // gone
            }
            ready.completeExceptionally(new IOException("relay of " + name + " exited:\n" + NetworkLab.tail(log)));
        }, "relay-out-" + name);
        t.setDaemon(true);
        t.start();
        try {
            ready.get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            relay.destroyForcibly();
            relay = null;
            throw new IOException("the relay of node " + name + " did not start: " + e.getMessage() + "\n" + NetworkLab.tail(log));
        }
        return relaySocket;
    }

    synchronized void closeRelay() {
        forwards.values().forEach(Forward::close);
        forwards.clear();
        if (relay != null) {
            relay.destroy();
            try {
                if (!relay.waitFor(5, TimeUnit.SECONDS)) {
                    relay.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                relay.destroyForcibly();
                Thread.currentThread().interrupt();
            }
            relay = null;
        }
    }

    @Override
    public String toString() {
        return name + " (" + address + " in " + netns + ")";
    }

    /** A loopback listener of this JVM whose connections go through a node's relay to one lab address. */
    private static final class Forward {
        private final ServerSocketChannel server;
        private final Thread acceptor;

        Forward(Path relaySocket, String address, int port) throws IOException {
            server = ServerSocketChannel.open();
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            acceptor = new Thread(() -> {
                while (server.isOpen()) {
                    SocketChannel local;
                    try {
                        local = server.accept();
                    } catch (IOException e) {
                        return;
                    }
                    try {
                        SocketChannel remote = SocketChannel.open(StandardProtocolFamily.UNIX);
                        remote.connect(UnixDomainSocketAddress.of(relaySocket));
                        NamespaceRelay.writeHeader(remote, address, port);
                        NamespaceRelay.splice(local, remote);
                    } catch (IOException e) {
                        try {
                            local.close();
                        } catch (IOException ignored) {
                            // closing anyway
                        }
                    }
                }
            }, "lab-forward-" + address + ":" + port);
            acceptor.setDaemon(true);
            acceptor.start();
        }

        InetSocketAddress local() throws IOException {
            return (InetSocketAddress) server.getLocalAddress();
        }

        void close() {
            try {
                server.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }
}
