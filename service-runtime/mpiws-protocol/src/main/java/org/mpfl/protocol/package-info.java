/**
 * The MPIWS protocol: what the engine and the service hosts say to each other, with the JDK and
 * Jackson alone, so that the engine can speak to hosts without the runtime (and Axis2) on its compile
 * path. It holds the names and the WSDL of the operations ({@link org.mpfl.protocol.MpiwsNames},
 * {@link org.mpfl.protocol.MpiwsWsdl}); the bodies of {@code run}, {@code status} and {@code abort}
 * ({@link org.mpfl.protocol.RunRequest}, {@link org.mpfl.protocol.RunMessages},
 * {@link org.mpfl.protocol.RankStatus}) and the engine's client of them
 * ({@link org.mpfl.protocol.MpiwsClient}); where a rank is reached ({@link org.mpfl.protocol.Endpoint});
 * SOAP faults and media types; what ranks report back (events, {@link org.mpfl.protocol.RankEvent}, and
 * checkpoint parts, {@link org.mpfl.protocol.CheckpointUpload}); and the secrets that bind them: a
 * domain's token and its proofs ({@link org.mpfl.protocol.DomainToken}) and the engine's key for each
 * host ({@link org.mpfl.protocol.HostCredential}). XML is read without DTDs or external entities
 * ({@link org.mpfl.protocol.Xml}).
 *
 * <p>Sub-packages: {@code launch} starts service-host processes, {@code tls} is the TLS of every
 * endpoint and client, {@code digest} the SHA-256 both ends of a digest compute, {@code kernel} the Python
 * worker of {@code <compute python>} kernels (run by the runtime, asked by the compiler). This package uses
 * {@code tls} (the engine's client) and {@code digest} (a credential's verifier); the launcher is above
 * the messages, never below.
 */
package org.mpfl.protocol;
