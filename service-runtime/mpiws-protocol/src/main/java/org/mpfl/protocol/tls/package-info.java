/**
 * TLS for every MPFL network entry: {@link org.mpfl.protocol.tls.TlsSettings} turns the
 * {@code --tls-*} flags into key material, a trusted CA and the sockets and HTTP clients of the
 * engine, the hosts and their clients.
 */
package org.mpfl.protocol.tls;
