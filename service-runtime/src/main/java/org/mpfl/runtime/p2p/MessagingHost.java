package org.mpfl.runtime.p2p;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.mpfl.protocol.Endpoint;
import org.mpfl.protocol.RunRequest;
import org.mpfl.protocol.guard.ConnectionGuard;
import org.mpfl.protocol.tls.TlsSettings;
import org.mpfl.runtime.transport.MemoryBudget;
import org.mpfl.runtime.transport.Transport;
import org.mpfl.runtime.transport.TransportSelector;
import org.mpfl.runtime.transport.binary.BinaryServer;
import org.mpfl.runtime.transport.binary.BinaryTransport;
import org.mpfl.runtime.transport.local.LocalTransport;

/**
 * The messaging half of one service host: its rank registry (the inbox of every transport), the
 * local transport, optionally the binary channel (server and client), and the transport selector
 * with the SOAP transport the host supplies. The Axis2 host builds one of these and opens a rank
 * instance per {@code run}; tests build them without Axis2.
 */
public final class MessagingHost implements AutoCloseable {
    private final String hostId;
    private final RankRegistry registry;
    private final BinaryServer binaryServer;
    private final TransportSelector selector;

    private MessagingHost(String hostId, RankRegistry registry, BinaryServer binaryServer, TransportSelector selector) {
        this.hostId = hostId;
        this.registry = registry;
        this.binaryServer = binaryServer;
        this.selector = selector;
    }

    /**
     * Starts a host's messaging.
     *
     * @param hostId         unique id of this host process
     * @param binaryBindHost address the binary channel listens on, or {@code null} for no binary channel
     * @param binaryPort     its port (0: any free port)
     * @param advertisedHost the name peers use to reach the binary channel (e.g. 127.0.0.1)
     * @param soap           the SOAP transport, or {@code null} (then only local and binary work)
     */
    public static MessagingHost start(String hostId, String binaryBindHost, int binaryPort, String advertisedHost,
                                      MessagingSettings settings, Transport soap) {
        return start(hostId, binaryBindHost, binaryPort, advertisedHost, settings, MemoryBudget.fromSystemProperties(), soap);
    }

    /** Like {@link #start(String, String, int, String, MessagingSettings, Transport)} with the host's memory budget given. */
    public static MessagingHost start(String hostId, String binaryBindHost, int binaryPort, String advertisedHost,
                                      MessagingSettings settings, MemoryBudget budget, Transport soap) {
        return start(hostId, binaryBindHost, binaryPort, advertisedHost, settings, budget, soap, TlsSettings.NONE);
    }

    /**
     * Like {@link #start(String, String, int, String, MessagingSettings, MemoryBudget, Transport)},
     * with the binary channel over TLS when {@code tls} is on: its server with this host's
     * certificate, its connections verifying the peers' certificates against the CA.
     */
    public static MessagingHost start(String hostId, String binaryBindHost, int binaryPort, String advertisedHost,
                                      MessagingSettings settings, MemoryBudget budget, Transport soap, TlsSettings tls) {
        RankRegistry registry = new RankRegistry(hostId, settings, budget);
        BinaryServer server = null;
        BinaryTransport binary = null;
        if (binaryBindHost != null) {
            try {
                server = new BinaryServer(registry, binaryBindHost, binaryPort, advertisedHost, tls);
            } catch (IOException e) {
                registry.close();
                throw new UncheckedIOException("cannot open the binary channel on " + binaryBindHost + ":" + binaryPort, e);
            }
            // a connection to a peer opens with a proof of the token of a domain both hosts belong to
            binary = new BinaryTransport(Math.max(10_000, settings.deliveryDeadline().toMillis()), id -> {
                Domain d = registry.domain(id);
                return d == null ? null : d.proofs();
            }, tls);
        }
        TransportSelector selector = new TransportSelector(new LocalTransport(hostId, registry), binary, soap);
        return new MessagingHost(hostId, registry, server, selector);
    }

    /**
     * Messaging for ranks that all live in this JVM ({@code mpflc run --local} without host processes): the
     * in-JVM transport only — no binary channel, no SOAP, no socket of any kind — so no message can come
     * from outside, and the domains' messages carry no token proofs ({@link RankRegistry#inJvmOnly}).
     */
    public static MessagingHost inJvmOnly(String hostId, MessagingSettings settings) {
        RankRegistry registry = new RankRegistry(hostId, settings, MemoryBudget.fromSystemProperties(), true);
        return new MessagingHost(hostId, registry, null, new TransportSelector(new LocalTransport(hostId, registry), null, null));
    }

    public String hostId() {
        return hostId;
    }

    public RankRegistry registry() {
        return registry;
    }

    public TransportSelector selector() {
        return selector;
    }

    /** {@code host:port} of this host's binary channel, or {@code null}. */
    public String binaryAddress() {
        return binaryServer == null ? null : binaryServer.address();
    }

    /** What strangers' connections to the binary channel may cost, or {@code null}: no binary channel. */
    public ConnectionGuard binaryGuard() {
        return binaryServer == null ? null : binaryServer.guard();
    }

    /**
     * Serves a binary-channel connection spliced elsewhere (a relay's, {@link BinaryServer#adopt});
     * closes it when this host has no binary channel.
     */
    public void adoptBinary(java.nio.channels.SocketChannel ch) throws IOException {
        if (binaryServer == null) {
            ch.close();
            throw new IOException("this host has no binary channel");
        }
        binaryServer.adopt(ch);
    }

    /** The endpoint of a rank living in this host. */
    public Endpoint endpoint(String soapUrl) {
        return new Endpoint(soapUrl, binaryAddress(), hostId);
    }

    /** Opens the rank instance a {@code run} request asks for (its program is the caller's business). */
    public RankInstance open(RunRequest run) {
        return registry.open(run.domainId(), run.rank(), run.token(), run.endpoints(), selector, run.transport());
    }

    @Override
    public void close() {
        registry.close();
        if (binaryServer != null) {
            binaryServer.close();
        }
        selector.close();
    }
}
