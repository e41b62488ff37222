package org.mpfl.runtime.transport.binary;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.mpfl.runtime.settings.RuntimeSettings;

/**
 * The binary channel's frames (all integers little-endian). One request at a time per connection;
 * every request gets a one-byte reply, so each store is confirmed.
 *
 * <p>Handshake: on accepting a connection the server sends {@code HELLO := "MPFB" version:u8
 * challenge[32]} (fresh random bytes); the client's first frame must be
 * {@code AUTH(5) := domainIdLen:u16 proofLen:u8 domainId proof} with the proof
 * {@code DomainToken.proveChannel(challenge, domainId)} of a domain it belongs to, answered with
 * one reply byte (STORED: open; BUSY: domain not known here yet; DUPLICATE: domain ended;
 * REJECTED: wrong proof) — anything else, or no AUTH within {@link #HANDSHAKE_MILLIS}, closes
 * the connection. Nothing is allocated for a peer before it has proved a domain token, and each
 * later store still carries its own proof, checked (with its length and the host's memory) before
 * its payload is read. A connection silent for {@code mpfl.binary.idleTimeoutMs} is closed.
 *
 * <pre>
 * request  := op:u8 body
 * STORE(1) := kind:u8 payloadType:u8 proofLen:u8 domainIdLen:u16 context:i32 from:i32 to:i32 tag:i32
 *             seq:i64 payloadLen:i64 domainId:utf8[domainIdLen] proof[proofLen] payload[payloadLen]
 * ABORT(2) := proofLen:u8 domainIdLen:u16 domainId proof
 * PING(3)  := (empty)             -- reachability check at domain set-up
 * ASK(4)   := the STORE header without the payload; the server answers GO and then reads the
 *             payload (and answers again with the store's outcome), or answers BUSY, REJECTED or
 *             DUPLICATE at once and no payload follows
 * reply    := u8: 0 STORED (abort: accepted; ping: alive), 1 DUPLICATE, 2 BUSY, 3 REJECTED, 4 MALFORMED, 5 GO,
 *             6 TOO_LARGE (the payload length is over the receiving host's per-message limit; final)
 * </pre>
 *
 * ASK is the rendezvous for payloads above {@link #EAGER_MAX_BYTES} (1 MiB): the receiver checks
 * the token proof and its buffer before a single payload byte travels, so retries of a big message
 * cost neither bandwidth nor receiver memory, and a stranger cannot make a host allocate more than
 * 1 MiB per connection (a STORE with a larger payload is a protocol error). Smaller payloads go
 * eagerly with STORE.
 *
 * The payload is the value's wire form of {@code Payload}: primitive arrays as raw little-endian
 * elements, streamed straight from/into the arrays through a direct buffer (no serialisation, no
 * whole-message intermediate copy).
 */
final class BinaryProtocol {
    static final byte OP_STORE = 1;
    static final byte OP_ABORT = 2;
    static final byte OP_PING = 3;
    static final byte OP_ASK = 4;
    static final byte OP_AUTH = 5;

    static final byte[] HELLO_MAGIC = {'M', 'P', 'F', 'B'};
    static final byte VERSION = 1;
    static final int CHALLENGE_BYTES = 32;
    static final int HELLO_BYTES = HELLO_MAGIC.length + 1 + CHALLENGE_BYTES;
    /** A handshake (connect to AUTH answered) must complete within this, else the server drops the connection. */
    static final long HANDSHAKE_MILLIS = RuntimeSettings.BINARY_HANDSHAKE_TIMEOUT_MS.get();
    /** A connection without a byte received for this long is closed by the server. */
    static final long IDLE_MILLIS = RuntimeSettings.BINARY_IDLE_TIMEOUT_MS.get();

    static final byte REPLY_STORED = 0;
    static final byte REPLY_DUPLICATE = 1;
    static final byte REPLY_BUSY = 2;
    static final byte REPLY_REJECTED = 3;
    static final byte REPLY_MALFORMED = 4;
    static final byte REPLY_GO = 5;
    static final byte REPLY_TOO_LARGE = 6;

    /** The largest payload a STORE may carry; larger ones go with ASK (rendezvous). A protocol constant. */
    static final long EAGER_MAX_BYTES = 1L << 20;
    /** Connections a binary server accepts at once (one thread each); more are closed at once. */
    static final int MAX_CONNECTIONS = RuntimeSettings.BINARY_MAX_CONNECTIONS.get();

    /** Bytes of a STORE request after the op byte and before the domain ID. */
    static final int STORE_FIXED = 1 + 1 + 1 + 2 + 4 * 4 + 8 + 8;
    static final int MAX_DOMAIN_ID = 1024;
    static final int MAX_PROOF = 255;
    /** Java arrays end at about 2^31 elements of bytes. */
    static final long MAX_PAYLOAD = Integer.MAX_VALUE - 64;
    static final int BUFFER_BYTES = 256 * 1024;

    private BinaryProtocol() {
    }

    /** The server's HELLO carrying {@code challenge} ({@link #CHALLENGE_BYTES} bytes): what {@link #helloChallenge} reads. */
    static byte[] hello(byte[] challenge) {
        return ByteBuffer.allocate(HELLO_BYTES).put(HELLO_MAGIC).put(VERSION).put(challenge).array();
    }

    /** Checks the server's HELLO ({@link BinaryProtocol#HELLO_BYTES} bytes) and returns its challenge. */
    static byte[] helloChallenge(byte[] hello) throws IOException {
        if (hello.length < HELLO_BYTES) {
            throw new java.io.EOFException("binary channel closed before HELLO");
        }
        for (int i = 0; i < HELLO_MAGIC.length; i++) {
            if (hello[i] != HELLO_MAGIC[i]) {
                throw new IOException("not an MPFL binary channel (no HELLO)");
            }
        }
        if (hello[HELLO_MAGIC.length] != VERSION) {
            throw new IOException("binary channel version " + hello[HELLO_MAGIC.length] + " not spoken here");
        }
        return Arrays.copyOfRange(hello, HELLO_MAGIC.length + 1, HELLO_BYTES);
    }
}
