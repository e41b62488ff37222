package org.mpfl.testing.lab;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.mpfl.protocol.launch.NetworkNamespaces;
import org.mpfl.protocol.launch.NetworkNamespaces.Result;

/**
 * The lab's sites ({@link NetworkLab.Builder#sites}): the lab's switch becomes the "WAN" (engine,
 * relay, attacker, gateways), and each site {@code K} is a switch of its own with the subnet
 * {@code 10.77.K.0/24} behind a gateway node {@code gwK} ({@code 10.77.0.(200+K)} on the WAN,
 * {@code 10.77.K.1} in the site). By default a gateway is a NAT router: it masquerades the site's
 * outbound connections and drops every connection from the WAN into the site
 * ({@code iptables -t nat … MASQUERADE}, {@code FORWARD … DROP} for new inbound), so no host of one
 * site can open a connection to a host of another. With {@link NetworkLab.Builder#sitesReachable()}
 * the gateways route both ways instead (the lab variant where the sites reach each other).
 *
 * <p>Each gateway's WAN link and the relay's are shaped with {@code tc tbf} to the lab's WAN rate in
 * both directions (on the node's interface and on the switch's port); site links are veth pairs,
 * unshaped (tens of Gbit/s).
 */
final class SiteNetwork {
    /** The relay's node address on the WAN. */
    static final String RELAY_ADDRESS = NetworkLab.SUBNET + 5;
    static final int RELAY_PORT = 7070;

    private final NetworkLab lab;
    private final int siteCount;
    private final boolean reachable;
    private final String wanRate;
    private final List<LabNode> gateways = new ArrayList<>();

    SiteNetwork(NetworkLab lab, int siteCount, boolean reachable, String wanRate) {
        this.lab = lab;
        this.siteCount = siteCount;
        this.reachable = reachable;
        this.wanRate = wanRate;
    }

    /** The subnet prefix of site {@code k} (1-based). */
    static String subnet(int k) {
        return "10.77." + k + ".";
    }

    /** Makes the gateways and the site switches; the WAN nodes get routes to the sites when they are reachable. */
    void build(List<LabNode> wanNodes) throws IOException {
        for (int k = 1; k <= siteCount; k++) {
            LabNode gw = lab.wanNode("gw" + k, NetworkLab.SUBNET + (200 + k));
            gateways.add(gw);
            String siteSwitch = lab.siteSwitch(k);
            NetworkNamespaces.addSwitch(siteSwitch);
            NetworkNamespaces.ip("link", "add", "eth1", "netns", gw.netns(), "type", "veth", "peer", "name", "p-gw" + k,
                    "netns", siteSwitch);
            NetworkNamespaces.ip("-n", siteSwitch, "link", "set", "p-gw" + k, "master", "br0");
            NetworkNamespaces.ip("-n", siteSwitch, "link", "set", "p-gw" + k, "up");
            NetworkNamespaces.ip("-n", gw.netns(), "addr", "add", subnet(k) + "1/24", "dev", "eth1");
            NetworkNamespaces.ip("-n", gw.netns(), "link", "set", "eth1", "up");
            check(gw, "sysctl", "-q", "-w", "net.ipv4.ip_forward=1");
            String ipt = LabFirewall.iptablesCommand(gw);
            if (reachable) {
                for (int other = 1; other <= siteCount; other++) {
                    if (other != k) {
                        NetworkNamespaces.ip("-n", gw.netns(), "route", "add", subnet(other) + "0/24", "via",
                                NetworkLab.SUBNET + (200 + other));
                    }
                }
            } else {
                check(gw, ipt, "-t", "nat", "-A", "POSTROUTING", "-o", "eth0", "-j", "MASQUERADE");
                check(gw, ipt, "-A", "FORWARD", "-i", "eth0", "-o", "eth1", "-m", "conntrack", "--ctstate",
                        "ESTABLISHED,RELATED", "-j", "ACCEPT");
                check(gw, ipt, "-A", "FORWARD", "-i", "eth0", "-o", "eth1", "-j", "DROP");
            }
            shape(gw, "p-gw" + k);
        }
        if (reachable) {
            for (LabNode n : wanNodes) {
                for (int k = 1; k <= siteCount; k++) {
                    NetworkNamespaces.ip("-n", n.netns(), "route", "add", subnet(k) + "0/24", "via", NetworkLab.SUBNET + (200 + k));
                }
            }
        }
    }

    /** A host node in site {@code k}: on the site's switch, default route through the gateway. */
    LabNode siteNode(int k, String name, int lastOctet) throws IOException {
        LabNode n = lab.node(lab.siteSwitch(k), name, subnet(k) + lastOctet);
        NetworkNamespaces.ip("-n", n.netns(), "route", "add", "default", "via", subnet(k) + "1");
        return n;
    }

    /** Shapes a WAN node's link both ways: its eth0 and its port on the WAN switch. */
    void shape(LabNode node, String switchPort) throws IOException {
        for (List<String> dev : List.of(List.of("ip", "netns", "exec", node.netns(), "tc", "qdisc", "add", "dev", "eth0"),
                List.of("ip", "netns", "exec", lab.wanSwitch(), "tc", "qdisc", "add", "dev", switchPort))) {
            List<String> cmd = new ArrayList<>(dev);
            cmd.addAll(List.of("root", "tbf", "rate", wanRate, "burst", "256kb", "latency", "50ms"));
            NetworkNamespaces.check(cmd);
        }
    }

    /** The gateway of site {@code k} (1-based). */
    LabNode gateway(int k) {
        return gateways.get(k - 1);
    }

    private static void check(LabNode n, String... command) throws IOException {
        Result r = n.exec(command);
        if (r.code() != 0) {
            throw new IOException(String.join(" ", command) + " in " + n + " failed: " + r.out());
        }
    }
}
