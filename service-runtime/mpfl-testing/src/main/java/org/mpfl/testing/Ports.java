package org.mpfl.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Loopback ports for a server that a test closes while a client keeps dialling it and then starts again at the
 * same port (an engine or relay that is down for a while, as its clients see it: connections refused, then the
 * same address answering again).
 *
 * <p>A port from {@code bind(0)} lies in the kernel's ephemeral range ({@code /proc/sys/net/ipv4/ip_local_port_range}),
 * the range a dialling client's own port is taken from. A client dialling such a closed port on loopback can be
 * given that very port as its own and connect to itself (TCP simultaneous open); the port is then held by that
 * connection for as long as the client keeps it, and the server's restart fails with a BindException, on a slow
 * machine for longer than any retry waited. A port outside the range is never a client's own port: only an
 * explicit bind takes it, so the server always gets it back.
 */
public final class Ports {
    /** Where the search starts below the ephemeral range: clear of the well-known and most registered services. */
    private static final int LOWEST = 10_000;
    private static final Path RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    /**
     * Every port handed out in this JVM: a test binds its port some time after it got it, and a test beside it (the
     * parallel classes of one fork) must not be given the same one meanwhile, as a check of "free now" alone allowed.
     */
    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

    private Ports() {
    }

    /**
     * A loopback port free now and outside the ephemeral range, picked at random (tests in JVMs beside each other
     * rarely meet) and checked by binding it; never one handed out before in this JVM.
     *
     * @throws IllegalStateException when the ephemeral range leaves no room ({@value #LOWEST} to 65535 all ephemeral)
     */
    public static int outsideEphemeralRange() throws IOException {
        int[] range = ephemeralRange();
        int below = Math.max(0, range[0] - LOWEST);
        int above = Math.max(0, 65_535 - range[1]);
        if (below + above == 0) {
            throw new IllegalStateException("no port outside the ephemeral range " + range[0] + "-" + range[1] + " of " + RANGE);
        }
        for (int attempt = 0; attempt < 200; attempt++) {
            int pick = ThreadLocalRandom.current().nextInt(below + above);
            int port = pick < below ? LOWEST + pick : range[1] + 1 + (pick - below);
            if (!HANDED_OUT.contains(port) && free(port) && HANDED_OUT.add(port)) {
                return port;
            }
        }
        throw new IllegalStateException("no free loopback port outside the ephemeral range " + range[0] + "-" + range[1]
                + " in 200 random picks");
    }

    /** The kernel's ephemeral range, first and last port; Linux's default when it cannot be read. */
    static int[] ephemeralRange() throws IOException {
        if (!Files.isReadable(RANGE)) {
            return new int[] {32_768, 60_999};
        }
        // a /proc file has no size: read it line by line (a read by its size sees nothing)
        String[] parts = Files.readAllLines(RANGE).get(0).trim().split("\\s+");
        return new int[] {Integer.parseInt(parts[0]), Integer.parseInt(parts[1])};
    }

    private static boolean free(int port) {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
            return true;
        } catch (IOException taken) {
            return false;
        }
    }
}
