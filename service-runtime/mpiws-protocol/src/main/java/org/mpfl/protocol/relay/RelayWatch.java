package org.mpfl.protocol.relay;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * The engine's watch of one relay ({@link RelayDialer#watch}): a connection on which the relay pings every
 * second, given up with a reason when it breaks (a killed relay) or stays silent (a cut network), or ended by
 * its owner ({@link #stop}: the engine closing), which hears nothing then.
 */
public final class RelayWatch {
    private final Thread thread;
    private final AtomicReference<SocketChannel> channel = new AtomicReference<>();
    /** Set by whichever comes first: the stop (the listener hears nothing) or the loss (the listener is told). */
    private final AtomicBoolean ended = new AtomicBoolean();

    private RelayWatch(RelayIdentity identity, String relay, long silenceMs, Consumer<String> onLost) {
        thread = new Thread(() -> run(identity, relay, silenceMs, onLost), "mpfl-relay-watch-" + relay);
        thread.setDaemon(true);
    }

    /**
     * Ends the watch without a word to its listener, and waits at most {@code bound} for its thread, a listener
     * already told of a loss included: what it does (a run's record written) is done before its owner goes on to
     * close what it needs (the engine's store). Returns whether the thread ended within the bound.
     */
    public boolean stop(Duration bound) {
        if (ended.compareAndSet(false, true)) {
            SocketChannel ch = channel.get();
            if (ch != null) {
                try {
                    // the blocked read ends at once; the thread sees the stop and tells no one
                    ch.close();
                } catch (IOException ignored) {
                    // closed already
                }
            }
            // a dial under way ends too; never a listener's work (an interrupted write can close the store's file)
            thread.interrupt();
        }
        try {
            thread.join(Math.max(1, bound.toMillis()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return !thread.isAlive();
    }

    /** Starts the watch on a daemon thread; {@code onLost} runs once, with the reason, when it ends (not when stopped). */
    static RelayWatch start(RelayIdentity identity, String relay, long silenceMs, Consumer<String> onLost) {
        RelayWatch w = new RelayWatch(identity, relay, silenceMs, onLost);
        w.thread.start();
        return w;
    }

    private void run(RelayIdentity identity, String relay, long silenceMs, Consumer<String> onLost) {
        String why;
        RelayIdentity me = identity;
        try {
            String[] hp = RelayWire.hostPort(relay);
            try (SocketChannel ch = RelayDialer.direct(hp[0], Integer.parseInt(hp[1]), (int) silenceMs)) {
                channel.set(ch);
                if (ended.get()) {
                    return;
                }
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
        if (ended.compareAndSet(false, true)) {
            onLost.accept(why);
        }
    }
}
