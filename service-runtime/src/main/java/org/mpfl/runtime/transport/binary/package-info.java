/**
 * Internal: the binary channel between MPFL service hosts — one persistent TCP connection per host
 * pair, framed header plus raw little-endian array bytes, one confirmation per store, rendezvous for
 * payloads above 1 MiB. Frames: {@code BinaryProtocol} and docs/wire-format.md.
 */
package org.mpfl.runtime.transport.binary;
