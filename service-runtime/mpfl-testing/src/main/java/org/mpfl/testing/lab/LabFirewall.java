package org.mpfl.testing.lab;

import java.io.IOException;
import java.util.List;
import org.mpfl.protocol.launch.NetworkNamespaces.Result;

/** A rule dropping incoming TCP to one port of one node; {@link #close} removes it. */
public final class LabFirewall implements AutoCloseable {
    private final LabNode node;
    private final int port;
    private final String iptables;

    LabFirewall(LabNode node, int port) throws IOException {
        this.node = node;
        this.port = port;
        this.iptables = iptablesCommand(node);
    }

    void change(String action) throws IOException {
        Result r = node.exec(iptables, action, "INPUT", "-p", "tcp", "--dport", Integer.toString(port), "-j", "DROP");
        if (r.code() != 0) {
            throw new IOException(iptables + " " + action + " in " + node + " failed: " + r.out());
        }
    }

    /** Packets the rule dropped so far (proof that something tried the port). */
    public long droppedPackets() throws IOException {
        Result r = node.exec(iptables, "-L", "INPUT", "-v", "-n", "-x");
        for (String line : r.out().split("\n")) {
            if (line.contains("dpt:" + port) && line.contains("DROP")) {
                return Long.parseLong(line.strip().split("\\s+")[0]);
            }
        }
        throw new IOException("no DROP rule for port " + port + " in " + node + ":\n" + r.out());
    }

    @Override
    public void close() throws IOException {
        change("-D");
    }

    /** {@code iptables} if it works inside the node, else {@code iptables-legacy}. */
    static String iptablesCommand(LabNode node) throws IOException {
        StringBuilder why = new StringBuilder();
        for (String c : List.of("iptables", "iptables-legacy")) {
            try {
                Result r = node.exec(c, "-S", "INPUT");
                if (r.code() == 0) {
                    return c;
                }
                why.append(c).append(": ").append(r.out().strip()).append("; ");
            } catch (IOException e) {
                why.append(c).append(": ").append(e.getMessage()).append("; ");
            }
        }
        throw new IOException("no working iptables inside a network namespace (apt-get install iptables): " + why);
    }
}
