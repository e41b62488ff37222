package org.mpfl.runtime.interp.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rank's side of a call sleeps once per call: it waits for the answer in {@code epoll}, which a
 * peer's reading of the request does not wake. A {@code read} blocked on a Unix stream socket would be
 * woken by it (the write-space notification shares the socket's wait queue) and sleep twice per call
 * (docs/kernel-protocol.md, "Waiting"). The peer here, a thread standing in for the worker, reads each
 * request 5 ms after it was sent and answers 5 ms later, so the caller is asleep at both moments; the
 * count is the calling thread's own voluntary context switches ({@code /proc/thread-self/status}).
 */
class ControlChannelWakeupTest {
    private static final int CALLS = 40;
    private static final long PEER_PAUSE_MS = 5;

    @Test
    void aCallSleepsOnceNotOnceMoreWhenTheWorkerReadsTheRequest(@TempDir Path dir) throws Exception {
        Path path = dir.resolve("ctl");
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(path));
            try (SocketChannel workerEnd = SocketChannel.open(UnixDomainSocketAddress.of(path));
                 SocketChannel rankEnd = server.accept();
                 ControlChannel channel = new ControlChannel(rankEnd, new CompletableFuture<>(), 30_000)) {
                Thread peer = new Thread(() -> echo(workerEnd), "control-channel-test-peer");
                peer.setDaemon(true);
                peer.start();
                long before = voluntarySwitches();
                for (int i = 0; i < CALLS; i++) {
                    channel.send("call " + i);
                    assertEquals("result " + i, channel.receive(System.nanoTime() + TimeUnit.SECONDS.toNanos(30)));
                }
                long slept = voluntarySwitches() - before;
                // a blocking read: about 2 * CALLS; a few more allowed for the JVM's own pauses (safepoints)
                assertTrue(slept >= CALLS / 2 && slept <= CALLS + CALLS / 4,
                        "the calling thread slept " + slept + " times over " + CALLS + " calls (once each)");
                channel.send("exit");
                peer.join(TimeUnit.SECONDS.toMillis(30));
            }
        }
    }

    /** The worker's part: each request read after a pause, answered after another. */
    private static void echo(SocketChannel socket) {
        ByteBuffer head = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
        try {
            while (true) {
                Thread.sleep(PEER_PAUSE_MS);
                head.clear();
                readFully(socket, head);
                ByteBuffer body = ByteBuffer.allocate(head.flip().getInt());
                readFully(socket, body);
                String request = new String(body.array(), StandardCharsets.UTF_8);
                if (request.equals("exit")) {
                    return;
                }
                Thread.sleep(PEER_PAUSE_MS);
                byte[] answer = ("result " + request.substring("call ".length())).getBytes(StandardCharsets.UTF_8);
                ByteBuffer frame = ByteBuffer.allocate(4 + answer.length).order(ByteOrder.LITTLE_ENDIAN);
                frame.putInt(answer.length).put(answer).flip();
                while (frame.hasRemaining()) {
                    socket.write(frame);
                }
            }
        } catch (IOException | InterruptedException e) {
            // the test ended: its channel closed
        }
    }

    private static void readFully(SocketChannel socket, ByteBuffer into) throws IOException {
        while (into.hasRemaining()) {
            if (socket.read(into) < 0) {
                throw new IOException("closed");
            }
        }
    }

    private static long voluntarySwitches() throws IOException {
        return Files.readAllLines(Path.of("/proc/thread-self/status")).stream()
                .filter(l -> l.startsWith("voluntary_ctxt_switches:"))
                .mapToLong(l -> Long.parseLong(l.substring(l.indexOf(':') + 1).trim()))
                .findFirst().orElseThrow();
    }
}
