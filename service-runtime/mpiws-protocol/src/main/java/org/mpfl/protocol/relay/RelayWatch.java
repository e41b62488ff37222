package org.mpfl.protocol.relay;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.channels.SocketChannel;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The engine's watch of one relay ({@link RelayDialer#watch}): a connection on which the relay pings every
 * second, given up with a reason when it breaks (a killed relay) or stays silent (a cut network).
 */
final class RelayWatch {
    private RelayWatch() {
    }

    /** Starts the watch on a daemon thread; {@code onLost} runs once, with the reason, when it ends. */
    static void start(RelayIdentity identity, String relay, long silenceMs, Consumer<String> onLost) {
        Thread t = new Thread(() -> {
            String why;
            RelayIdentity me = identity;
            try {
                String[] hp = RelayWire.hostPort(relay);
                try (SocketChannel ch = RelayDialer.direct(hp[0], Integer.parseInt(hp[1]), (int) silenceMs)) {
                    Socket s = ch.socket();
                    s.setSoTimeout((int) silenceMs);
                    OutputStream out = s.getOutputStream();
                    InputStream in = s.getInputStream();
                    out.write(RelayServer.MAGIC);
                    Map<String, String> greeting = RelayWire.read(in);
                    Map<String, String> w = new LinkedHashMap<>();
                    w.put("op", "watch");
                    w.put("from", me == null ? "" : me.id());
                    String proof = me == null ? "" : me.proof("watch", relay, greeting.getOrDefault("relay", ""), greeting.getOrDefault("nonce", ""));
                    if (proof.isEmpty()) {
                        throw new IOException("it greeted as '" + greeting.getOrDefault("relay", "") + "', which is not the relay"
                                + " announced at that address");
                    }
                    w.put("proof", proof);
                    RelayWire.write(out, w);
                    Map<String, String> answer = RelayWire.read(in);
                    if (!answer.containsKey("ok")) {
                        throw new IOException("it refused to be watched: " + answer.getOrDefault("error", "no reason given"));
                    }
                    while (true) {
                        RelayWire.read(in);
                    }
                }
            } catch (java.net.SocketTimeoutException e) {
                why = "silent for " + silenceMs + " ms";
            } catch (IOException | RuntimeException e) {
                why = e.getMessage() == null ? e.toString() : e.getMessage();
            }
            onLost.accept(why);
        }, "mpfl-relay-watch-" + relay);
        t.setDaemon(true);
        t.start();
    }
}
