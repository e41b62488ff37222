package org.mpfl.protocol.relay;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * The user at the other end of a TCP connection accepted on loopback: the owner of the connecting socket,
 * as the kernel's socket tables say ({@code /proc/net/tcp} and {@code tcp6}, Linux; what identd reads).
 * A loopback listener is reachable by every user of the machine; this tells the process's own
 * connections (and its user's) from another user's.
 */
final class LoopbackPeer {
    private static final Path TCP = Path.of("/proc/net/tcp");
    private static final Path TCP6 = Path.of("/proc/net/tcp6");
    private static final String ESTABLISHED = "01";

    private LoopbackPeer() {
    }

    /** Whether the connecting end of {@code accepted} belongs to this process's user; false when that cannot be told. */
    static boolean isThisUser(Socket accepted) {
        try {
            OptionalInt owner = owner(tables(), accepted.getPort(), accepted.getLocalPort());
            return owner.isPresent() && owner.getAsInt() == thisUser();
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private static List<String> tables() throws IOException {
        List<String> lines = new ArrayList<>();
        for (Path table : List.of(TCP, TCP6)) {
            if (Files.isReadable(table)) {
                lines.addAll(Files.readAllLines(table));
            }
        }
        if (lines.isEmpty()) {
            throw new IOException("no socket table (" + TCP + ") to tell who connects");
        }
        return lines;
    }

    /**
     * The owner of the established socket whose own port is {@code peerPort} and whose far port is {@code ourPort},
     * from lines of the kernel's socket tables ({@code sl local_address rem_address st … uid …}).
     */
    static OptionalInt owner(List<String> tableLines, int peerPort, int ourPort) {
        for (String line : tableLines) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 8 || !f[0].endsWith(":") || !ESTABLISHED.equals(f[3])) {
                continue; // the heading, or a socket that is not (or no longer) connected
            }
            if (port(f[1]) == peerPort && port(f[2]) == ourPort) {
                return OptionalInt.of(Integer.parseInt(f[7]));
            }
        }
        return OptionalInt.empty();
    }

    private static int port(String hexAddress) {
        return Integer.parseInt(hexAddress.substring(hexAddress.lastIndexOf(':') + 1), 16);
    }

    /** This process's effective user id ({@code /proc/self/status}, the second number of {@code Uid:}). */
    static int thisUser() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("Uid:")) {
                return Integer.parseInt(line.substring(4).trim().split("\\s+")[1]);
            }
        }
        throw new IOException("no Uid line in /proc/self/status");
    }
}
