/**
 * Internal: MPIWS point-to-point messaging — a rank instance's mailbox (ordering by sequence
 * number, duplicate drop, matching, flow control), its ordered outbound lanes with retries, the
 * {@link org.mpfl.runtime.p2p.P2PCommunicator} over any group of world ranks and a context id, and
 * bstore (broadcast forwarded by the receiving hosts). See docs/wire-format.md.
 */
package org.mpfl.runtime.p2p;
