package org.mpfl.runtime.p2p;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.Endpoint;
import org.mpfl.runtime.api.Communicator;
import org.mpfl.runtime.transport.DomainTransports;
import org.mpfl.runtime.transport.ProbeTimeouts;
import org.mpfl.runtime.transport.Envelope;
import org.mpfl.runtime.transport.Transport;
import org.mpfl.runtime.transport.TransportException;
import org.mpfl.runtime.transport.local.LocalTransport;

/**
 * The binary channel is negotiated once per domain and peer host, at the domain's set-up, with a
 * fresh bounded probe (issue 13: "the SOAP fallback, negotiated at domain set-up, not at first
 * message"). Two hosts' messaging in this JVM talk over real loopback TCP; the binary address host A
 * knows for host B is a relay the test can "firewall": from then on it forwards nothing, on the
 * connections it already carries as on new ones (as an iptables DROP does). SOAP is replaced by an
 * in-JVM hand-over that counts what it carries.
 */
@Timeout(60)
class TransportNegotiationTest {
    private final List<AutoCloseable> open = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
    }

    /** Stands in for SOAP: delivers into the peer host's registry, and counts. */
    private static final class StubSoap implements Transport {
        final Map<String, Transport> hosts = new ConcurrentHashMap<>();
        final AtomicInteger stores = new AtomicInteger();

        @Override
        public String name() {
            return "soap";
        }

        @Override
        public boolean reaches(Endpoint endpoint) {
            return hosts.containsKey(endpoint.hostId());
        }

        @Override
        public void store(Endpoint endpoint, Envelope envelope) throws TransportException {
            stores.incrementAndGet();
            hosts.get(endpoint.hostId()).store(endpoint, envelope);
        }

        @Override
        public void abort(Endpoint endpoint, String domainId, byte[] proof) {
        }

        @Override
        public void close() {
        }
    }

    /**
     * A TCP relay to one address that can be firewalled: afterwards it forwards no byte, neither on
     * the connections it carries (their bytes vanish, nothing is refused or closed) nor on new ones
     * (accepted by the kernel, never answered), like a firewall that drops packets.
     */
    private static final class Relay implements AutoCloseable {
        final ServerSocket server;
        final InetSocketAddress target;
        volatile boolean firewalled;
        final AtomicInteger acceptedWhileFirewalled = new AtomicInteger();
        final List<Socket> sockets = new CopyOnWriteArrayList<>();
        final ExecutorService threads = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "test-relay");
            t.setDaemon(true);
            return t;
        });

        Relay(InetSocketAddress target) throws IOException {
            this.target = target;
            this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            threads.execute(this::acceptLoop);
        }

        String address() {
            return "127.0.0.1:" + server.getLocalPort();
        }

        private void acceptLoop() {
            try {
                while (true) {
                    Socket in = server.accept();
                    sockets.add(in);
                    if (firewalled) {
                        acceptedWhileFirewalled.incrementAndGet();
                        continue; // held open, silent
                    }
                    Socket out = new Socket();
                    out.connect(target, 2000);
                    sockets.add(out);
                    threads.execute(() -> pump(in, out));
                    threads.execute(() -> pump(out, in));
                }
            } catch (IOException closed) {
                // relay closed
            }
        }

        private void pump(Socket from, Socket to) {
            byte[] b = new byte[8192];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                for (int n; (n = in.read(b)) >= 0; ) {
                    if (!firewalled) {
                        out.write(b, 0, n);
                        out.flush();
                    }
                }
            } catch (IOException closed) {
                // one side closed
            }
        }

        @Override
        public void close() throws IOException {
            server.close();
            for (Socket s : sockets) {
                s.close();
            }
            threads.shutdownNow();
        }
    }

    private MessagingHost host(String id, StubSoap soap) {
        MessagingHost h = MessagingHost.start(id, "127.0.0.1", 0, "127.0.0.1", MessagingSettings.fromSystemProperties(), soap);
        open.add(h);
        soap.hosts.put(id, new LocalTransport(id, h.registry()));
        return h;
    }

    private static InetSocketAddress socketAddress(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        return new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
    }

    /** Opens a domain of rank 0 on {@code a} and rank 1 on {@code b}; endpoint 1 advertises {@code bBinary}. */
    private static RankInstance[] domain(MessagingHost a, MessagingHost b, String bBinary) {
        String id = DomainToken.generate();
        String token = DomainToken.generate();
        List<Endpoint> eps = List.of(a.endpoint("stub://a/0"), new Endpoint("stub://b/1", bBinary, b.hostId()));
        return new RankInstance[] {a.registry().open(id, 0, token, eps, a.selector(), "auto"),
                b.registry().open(id, 1, token, eps, b.selector(), "auto")};
    }

    @Test
    void aFirewalledBinaryPortMeansSoapForTheWholeDomainDecidedOnceAtSetUp() throws Exception {
        StubSoap soap = new StubSoap();
        MessagingHost a = host("neg-a", soap);
        MessagingHost b = host("neg-b", soap);
        Relay relay = new Relay(socketAddress(b.binaryAddress()));
        open.add(0, relay);

        // a first domain: the binary channel answers, and host a keeps a connection to it open
        RankInstance[] first = domain(a, b, relay.address());
        first[0].world().send("over binary", 1, 0);
        assertEquals("over binary", first[1].world().recv(0, 0, Duration.ofSeconds(10)).value());
        assertEquals("binary", a.registry().domain(first[0].domainId()).transports()
                .select(first[1].endpoints().get(1), "auto").name());
        assertEquals(0, soap.stores.get(), "the first domain should not have needed SOAP");

        relay.firewalled = true;
        long t0 = System.nanoTime();
        RankInstance[] second = domain(a, b, relay.address());
        Communicator sender = second[0].world();
        Communicator receiver = second[1].world();
        for (int i = 0; i < 20; i++) {
            sender.send(i, 1, 0);
        }
        for (int i = 0; i < 20; i++) {
            assertEquals(i, receiver.recv(0, 0, Duration.ofSeconds(10)).value());
        }
        long ms = (System.nanoTime() - t0) / 1_000_000;
        // one probe (bounded by its connection and answer bounds: the silenced relay takes the connection
        // and never answers), not a stall on the silenced old connection (a stall would last until the
        // receives' 10 s timeout; the probe plus 6 s holds on a loaded 2-core machine)
        long probeBound = ProbeTimeouts.total(second[1].endpoints().get(1), DomainTransports.PROBE_TIMEOUT_MS);
        assertTrue(ms < probeBound + 6000, "20 messages took " + ms + " ms");
        assertTrue(soap.stores.get() >= 20, "SOAP carried " + soap.stores.get());
        assertEquals("soap", a.registry().domain(second[0].domainId()).transports()
                .select(second[1].endpoints().get(1), "auto").name());
        assertEquals(1, relay.acceptedWhileFirewalled.get(), "host a should probe b's binary port once for the domain");
    }

    @Test
    void aRefusedBinaryPortIsDecidedAtOnceAndAnAnsweringOneGetsBinary() throws Exception {
        StubSoap soap = new StubSoap();
        MessagingHost a = host("neg-c", soap);
        MessagingHost b = host("neg-d", soap);
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        Endpoint refusing = new Endpoint("stub://x/1", "127.0.0.1:" + closedPort, "elsewhere");
        Endpoint answering = new Endpoint("stub://b/2", b.binaryAddress(), b.hostId());
        Endpoint self = a.endpoint("stub://a/0");
        ExecutorService probes = Executors.newCachedThreadPool();
        try {
            long t0 = System.nanoTime();
            DomainTransports d = a.selector().forDomain("d-refused", List.of(self, refusing, answering), "auto", probes);
            assertEquals("soap", d.select(refusing, "auto").name());
            assertEquals("binary", d.select(answering, "auto").name());
            assertEquals("local", d.select(self, "auto").name());
            long ms = (System.nanoTime() - t0) / 1_000_000;
            // the point: a refused port is decided at once, not after the probe timeout (the bound)
            assertTrue(ms < DomainTransports.PROBE_TIMEOUT_MS, "a refused port should be decided at once, took " + ms + " ms");
            // forced modes do not fall back
            assertEquals("binary", d.select(refusing, "binary").name());
            assertEquals("soap", d.select(answering, "soap").name());
        } finally {
            probes.shutdownNow();
        }
    }
}
