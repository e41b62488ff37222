package org.mpfl.runtime.host;

import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.util.List;
import java.util.Objects;
import org.mpfl.protocol.Endpoint;
import org.mpfl.protocol.guard.ConnectionGuard;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells every guard of a host — its SOAP port's and its binary channel's — which source addresses
 * are known before they prove anything there: the engine's, and the peers an authenticated
 * {@code run} names. Their connections are then served from the reserve while strangers are throttled.
 */
final class KnownSources {
    private static final Logger LOG = LoggerFactory.getLogger(KnownSources.class);

    private final List<ConnectionGuard> guards;

    /** @param guards the host's guards; {@code null}s (no SOAP port of its own, no binary channel) are left out */
    KnownSources(ConnectionGuard... guards) {
        this.guards = java.util.Arrays.stream(guards).filter(Objects::nonNull).toList();
    }

    /** The engine's address, known for good: its first calls (before one proved its key) are never a stranger's. */
    void trustEngine(String engineUrl) {
        if (engineUrl == null) {
            return;
        }
        for (InetAddress a : resolve(engineUrl)) {
            guards.forEach(g -> g.trust(a));
        }
    }

    /** The other hosts of a domain, as the engine named them in an accepted {@code run}, known for the trust time. */
    void rememberPeers(List<Endpoint> endpoints) {
        for (Endpoint e : endpoints) {
            for (InetAddress a : resolve(e.soapUrl())) {
                guards.forEach(g -> g.remember(a));
            }
        }
    }

    private static List<InetAddress> resolve(String url) {
        try {
            return List.of(InetAddress.getAllByName(URI.create(url).getHost()));
        } catch (IOException | IllegalArgumentException | NullPointerException e) {
            // unresolvable: its connections prove themselves as strangers' do
            LOG.debug("cannot resolve {}", url, e);
            return List.of();
        }
    }
}
