package org.mpfl.runtime.host;

import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.HostCredential;
import org.mpfl.protocol.relay.RelayDialer;
import org.mpfl.protocol.relay.RelayIdentity;
import org.mpfl.protocol.relay.RelayLink;
import org.mpfl.runtime.p2p.Domain;

/**
 * {@code mpflc host --relay HOST:PORT}: this host accepts no connection from outside its site, so it
 * holds a connection to a relay ({@link RelayLink}) for its SOAP and binary addresses, and dials
 * peers it cannot reach directly through the same relay ({@link RelayDialer}), proving the token of
 * the domain that connects them.
 */
final class HostRelay {
    private HostRelay() {
    }

    /**
     * Starts the relay link of {@code host} under {@code credential} (its dialer set up by {@link #dial} before); the
     * caller closes it. The relay registers only the addresses the engine's registry knows for this host, so a host
     * starts it once the engine took its announcement.
     */
    static RelayLink link(ServiceHost host, HostCredential credential, String relay, String site) {
        RelayIdentity me = identity(credential);
        List<String> addresses = new ArrayList<>();
        URI base = URI.create(host.baseUrl());
        addresses.add(base.getHost() + ":" + base.getPort());
        // the binary channel serves a relayed connection itself; SOAP (Axis2's listener) through loopback
        Map<String, RelayLink.InProcessServer> inProcess = new HashMap<>();
        if (host.binaryAddress() != null) {
            addresses.add(host.binaryAddress());
            inProcess.put(host.binaryAddress(), host::adoptBinary);
        }
        return new RelayLink(relay, me, host.tls(), addresses, site, tag -> {
            Domain d = host.registry().domainByRelayTag(tag);
            return d == null ? null : d.proofs();
        }, HostRelay::log, inProcess).onRegisteredAgain(lostMs -> askEngineAfterOutage(host, relay, lostMs)).start();
    }

    /**
     * Back at the relay after an outage: every live rank here posts a line saying so, so that the engine answers for
     * each domain. A domain it gave up while the relay was lost (its run failed or restarted) is refused, and the host
     * aborts it at once ({@link EventPoster}) - its ranks may be blocked on peers with nothing of their own to post, and
     * the engine's retried abort may have ended before the links registered again.
     */
    private static void askEngineAfterOutage(ServiceHost host, String relay, long lostMs) {
        int n = host.tellLiveRanks("host " + host.hostId() + " is registered at its relay " + relay + " again after " + lostMs
                + " ms without it");
        if (n > 0) {
            log("registered at relay " + relay + " again after " + lostMs + " ms: " + n + " live rank(s) report to the engine");
        }
    }

    /**
     * How {@code host} dials peers ({@link RelayDialer}): under its credential, with the token of the
     * domain that connects it to a peer and the peer's endpoint (its site and relay). A host without a
     * relay ({@code relay} null) accepts inbound connections: peers behind relays connect out to it on
     * its own address (reverse connections) rather than through a splice.
     *
     * @return the host's identity at relays
     */
    static RelayIdentity dial(ServiceHost host, HostCredential credential, String relay, String site) {
        RelayIdentity me = identity(credential);
        RelayDialer dialer = RelayDialer.shared();
        dialer.identity(me);
        dialer.ownRelay(relay, site);
        // a connection for one domain proves that domain's token, never another run's to the same peer
        dialer.domainKeys((domainId, target) -> Optional.ofNullable(domainId == null ? host.registry().domainReaching(target)
                : host.registry().domainReaching(domainId, target)).map(HostRelay::spliceKey));
        dialer.peers(target -> Optional.ofNullable(host.registry().endpointAt(target)));
        dialer.log(HostRelay::log);
        if (relay == null) {
            dialer.acceptsReverseOn(URI.create(host.baseUrl()).getHost());
        }
        return me;
    }

    private static RelayDialer.SpliceKey spliceKey(Domain d) {
        return new RelayDialer.SpliceKey(DomainToken.relayTag(d.id()), d.proofs());
    }

    private static void log(String message) {
        System.err.println("mpflc host: " + message);
    }

    /** A host's identity at relays: its id and an HMAC under its engine key (never its secret). */
    static RelayIdentity identity(HostCredential credential) {
        return RelayIdentity.ofHost(credential.hostId(), credential.engineKey());
    }
}
