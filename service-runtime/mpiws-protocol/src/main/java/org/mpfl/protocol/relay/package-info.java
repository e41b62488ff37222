/**
 * Across sites: the relay ({@code mpflc relay}, {@link org.mpfl.protocol.relay.RelayServer}) that
 * splices TCP connections to hosts which accept none from outside their site, the host's outbound
 * link to it ({@link org.mpfl.protocol.relay.RelayLink}) and the one place where a process decides
 * how it connects to another — direct, reverse (the peer behind a relay connects out, asked through
 * its relay: {@link org.mpfl.protocol.relay.ReverseConnections}) or through a relay
 * ({@link org.mpfl.protocol.relay.RelayDialer}).
 * The relay copies bytes; TLS runs between the hosts. See docs/deployment.md, "Across sites", and
 * docs/security.md for what it checks.
 */
package org.mpfl.protocol.relay;
