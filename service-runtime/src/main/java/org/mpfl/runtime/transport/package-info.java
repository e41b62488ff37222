/**
 * Internal: the one transport interface under the MPIWS operations, and its implementations
 * ({@code soap}: SOAP 1.2/MTOM over HTTP through Axis2, the interoperable default; {@code local}:
 * in-JVM hand-over between ranks of one service host; {@code binary}: a persistent TCP stream
 * between MPFL service hosts). All three carry the same {@link org.mpfl.runtime.transport.Envelope}
 * with the same semantics; {@link org.mpfl.runtime.transport.TransportSelector} picks one per peer.
 */
package org.mpfl.runtime.transport;
