/**
 * Internal: MPIWS point-to-point messaging and the communication domains it runs in, as one
 * service host sees them.
 *
 * <p>Domains: the {@link org.mpfl.runtime.p2p.RankRegistry} of rank instances keyed by (domain ID,
 * rank), the receiving side every transport hands arriving messages to (it implements the
 * transports' {@link org.mpfl.runtime.transport.Inbox} and the local transport's
 * {@link org.mpfl.runtime.transport.local.LocalInbox}); a {@link org.mpfl.runtime.p2p.Domain}'s
 * token and proofs, per-domain memory bound and abort; the point-to-point tunables
 * ({@link org.mpfl.runtime.p2p.MessagingSettings}); and the messaging half of a host
 * ({@link org.mpfl.runtime.p2p.MessagingHost}: registry, transports and their selector).
 *
 * <p>Messaging: a {@link org.mpfl.runtime.p2p.RankInstance}'s mailbox (ordering by sequence
 * number, duplicate drop, matching, flow control), its ordered outbound lanes with retries, the
 * {@link org.mpfl.runtime.p2p.P2PCommunicator} over any group of world ranks and a context id, and
 * bstore (broadcast forwarded by the receiving hosts). See docs/wire-format.md.
 *
 * <p>Depends on {@code api} and {@code transport} (with its {@code local} and {@code binary}
 * implementations) only; collectives and communicator creation live above it.
 */
package org.mpfl.runtime.p2p;
