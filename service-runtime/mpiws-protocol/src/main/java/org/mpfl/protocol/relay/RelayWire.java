package org.mpfl.protocol.relay;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.mpfl.protocol.DomainToken;

/**
 * The relay's wire format: small frames of {@code key=value} lines behind a 4-byte big-endian length,
 * and the proofs the frames carry.
 *
 * <p>Every connection to a relay starts with the relay's greeting ({@code relay}, a fresh
 * {@code nonce}); the client answers with one frame whose {@code op} says what the connection is:
 * {@code register} (a host's control connection), {@code dial} (a caller asking to be spliced to a
 * registered host's address) or {@code accept} (the host's side of that splice). A frame's announced
 * length is checked against {@link #MAX_FRAME} before anything is allocated for it, so an announced
 * 2 GB frame costs the relay four bytes of reading. After both ends of a splice got {@code ok}, the
 * connection carries the two hosts' own bytes (their TLS) and no more frames.
 */
public final class RelayWire {
    /** Largest frame accepted (a directory of a few hundred hosts fits). */
    public static final int MAX_FRAME = 64 * 1024;
    /** The {@code from} of a dial made by the engine itself (deploy, run, status, abort). */
    public static final String ENGINE = "engine";
    private static final byte[] HOST_LABEL = "MPFL-relay-host-1".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ENGINE_LABEL = "MPFL-relay-engine-1".getBytes(StandardCharsets.US_ASCII);

    private RelayWire() {
    }

    /** A frame whose announced length exceeds {@link #MAX_FRAME}: refused before allocation. */
    public static final class FrameTooLarge extends IOException {
        private static final long serialVersionUID = 1L;

        FrameTooLarge(long announced) {
            super("relay frame of " + announced + " bytes announced (at most " + MAX_FRAME + ")");
        }
    }

    /** Writes one frame (values must not hold line breaks) and flushes. */
    public static void write(OutputStream out, Map<String, String> fields) throws IOException {
        StringBuilder b = new StringBuilder();
        fields.forEach((k, v) -> {
            if (v != null) {
                if (v.indexOf('\n') >= 0 || k.indexOf('=') >= 0) {
                    throw new IllegalArgumentException("relay frame field " + k + " holds a line break or '='");
                }
                b.append(k).append('=').append(v).append('\n');
            }
        });
        byte[] body = b.toString().getBytes(StandardCharsets.UTF_8);
        if (body.length > MAX_FRAME) {
            throw new FrameTooLarge(body.length);
        }
        byte[] frame = ByteBuffer.allocate(4 + body.length).putInt(body.length).put(body).array();
        out.write(frame);
        out.flush();
    }

    /** Reads one frame; the length is checked before the body is allocated. */
    public static Map<String, String> read(InputStream in) throws IOException {
        DataInputStream d = new DataInputStream(in);
        int length;
        try {
            length = d.readInt();
        } catch (EOFException e) {
            throw new EOFException("the relay connection closed");
        }
        if (length < 0 || length > MAX_FRAME) {
            throw new FrameTooLarge(Integer.toUnsignedLong(length));
        }
        byte[] body = new byte[length];
        d.readFully(body);
        Map<String, String> fields = new LinkedHashMap<>();
        for (String line : new String(body, StandardCharsets.UTF_8).split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                fields.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        return fields;
    }

    /** A fresh nonce for one connection (256 bits). */
    public static String nonce() {
        return DomainToken.generate();
    }

    /**
     * A host's proof to relay {@code relayId} for this connection's nonce and request {@code op} ({@code register},
     * {@code dial}, {@code accept}): keyed with the host's engine key ({@code HostCredential#engineKey}), which the
     * engine also holds and checks for the relay — the relay never sees the host's secret nor anything it could replay.
     * The request is part of it because a host dials, on a plain connection, whatever relay a peer announced (and
     * whatever listens there, passing a real relay's greeting on): the proof it gives for a dial must not register it.
     */
    public static String hostProof(String engineKey, String op, String relayId, String nonce, String hostId) {
        return b64(hmac(engineKey, HOST_LABEL, op, relayId, nonce, hostId));
    }

    /** The engine's proof to relay {@code relayId}, keyed with the engine key of the relay's own credential. */
    public static String engineProof(String relayEngineKey, String relayId, String nonce) {
        return b64(hmac(relayEngineKey, ENGINE_LABEL, relayId, nonce, ENGINE));
    }

    /** Constant-time comparison of two proofs (either may be null: then false). */
    public static boolean same(String a, String b) {
        return a != null && b != null && !a.isEmpty()
                && MessageDigest.isEqual(a.getBytes(StandardCharsets.US_ASCII), b.getBytes(StandardCharsets.US_ASCII));
    }

    static String b64(byte[] b) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    private static byte[] hmac(String key, byte[] label, String... parts) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            mac.update(label);
            for (String part : parts) {
                byte[] b = part.getBytes(StandardCharsets.UTF_8);
                mac.update(ByteBuffer.allocate(4).putInt(b.length).array());
                mac.update(b);
            }
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available in this JVM", e);
        }
    }

    /** {@code host:port} split, or an exception naming the text. */
    static String[] hostPort(String address) throws IOException {
        int colon = address == null ? -1 : address.lastIndexOf(':');
        if (colon <= 0 || colon == address.length() - 1) {
            throw new IOException("'" + address + "' is not host:port");
        }
        return new String[] {address.substring(0, colon), address.substring(colon + 1)};
    }
}
