/**
 * TLS for every MPFL network entry: {@link org.mpfl.protocol.tls.TlsSettings} turns the
 * {@code --tls-*} flags (a PKCS#12 keystore, or PEM certificate and key, and the CA to trust) into key
 * material, a trust anchor and an {@link javax.net.ssl.SSLContext}, and from it makes the sockets and
 * HTTP clients of the engine, the service hosts (their SOAP endpoint and binary channel) and every
 * client of either; it also passes the same settings on to child hosts and words the start-up warning
 * of a component that listens in plaintext beyond loopback. Clients always verify the server's
 * certificate and name. It lives in the protocol module so that the engine, the runtime and the
 * launcher share one TLS configuration; it uses the JDK alone.
 */
package org.mpfl.protocol.tls;
