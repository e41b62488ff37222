package org.mpfl.protocol.digest;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * SHA-256 as lower-case hex, the one way MPFL names content by its digest: both ends of a checkpoint
 * upload (the host that sends a part, the engine that checks it), a deployed archive's digest and
 * service name, a plan's source digest, a workflow version's source and content digests, and a
 * rank's checkpoint state (and, as raw bytes, a host credential's verifier). Both ends must compute
 * the same text, so there is one implementation.
 */
public final class Sha256 {
    private Sha256() {
    }

    /** The 32 bytes of the SHA-256 of {@code bytes}. */
    public static byte[] of(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    /** The 64 lower-case hex digits of the SHA-256 of {@code bytes}. */
    public static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(of(bytes));
    }

    /** {@link #hex(byte[])} of the UTF-8 encoding of {@code text}. */
    public static String hex(String text) {
        return hex(text.getBytes(StandardCharsets.UTF_8));
    }
}
