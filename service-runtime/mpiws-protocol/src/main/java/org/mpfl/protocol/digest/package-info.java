/**
 * Content digests that more than one side computes and compares: {@link org.mpfl.protocol.digest.Sha256}
 * is the single SHA-256-to-hex helper of the whole repository. It sits in the protocol module because the
 * checkpoint upload carries it on the wire (the host computes it, the engine recomputes it) and because
 * the compiler, the runtime and the engine all depend on this module; it stands on the JDK alone.
 */
package org.mpfl.protocol.digest;
