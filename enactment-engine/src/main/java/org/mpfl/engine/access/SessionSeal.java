package org.mpfl.engine.access;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Optional;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * What a console session's row holds instead of its secrets: the SHA-256 of the session id (to find
 * the row) and the tokens AES-256-GCM encrypted under {@code HMAC-SHA256(id, label)}. The id is 384
 * random bits that only the browser's cookie carries, so the row can be opened only with the cookie;
 * the hash and the key are derived apart (a hash of the id gives no key).
 */
final class SessionSeal {
    private static final byte[] KEY_LABEL = "MPFL-console-session-key-1".getBytes(StandardCharsets.US_ASCII);
    private static final int IV_BYTES = 12;
    private static final int TAG_BITS = 128;
    private static final SecureRandom RANDOM = new SecureRandom();

    private SessionSeal() {
    }

    /** The hex SHA-256 of a session id: its row's key. */
    static String idHash(String sessionId) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(sessionId.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    /** {@code text} encrypted for the row of {@code sessionId} (Base64 of IV and ciphertext with its tag). */
    static String seal(String sessionId, String text) {
        byte[] iv = new byte[IV_BYTES];
        RANDOM.nextBytes(iv);
        try {
            byte[] sealed = cipher(Cipher.ENCRYPT_MODE, sessionId, iv).doFinal(text.getBytes(StandardCharsets.UTF_8));
            return Base64.getEncoder().encodeToString(ByteBuffer.allocate(IV_BYTES + sealed.length).put(iv).put(sealed).array());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM is part of every JDK", e);
        }
    }

    /** What {@link #seal} sealed for this id; empty when the row was not sealed with it (or was altered). */
    static Optional<String> open(String sessionId, String sealed) {
        try {
            byte[] all = Base64.getDecoder().decode(sealed);
            if (all.length < IV_BYTES + TAG_BITS / 8) {
                return Optional.empty();
            }
            byte[] iv = java.util.Arrays.copyOf(all, IV_BYTES);
            byte[] text = cipher(Cipher.DECRYPT_MODE, sessionId, iv).doFinal(all, IV_BYTES, all.length - IV_BYTES);
            return Optional.of(new String(text, StandardCharsets.UTF_8));
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static Cipher cipher(int mode, String sessionId, byte[] iv) throws GeneralSecurityException {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(sessionId.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
        c.init(mode, new SecretKeySpec(mac.doFinal(KEY_LABEL), "AES"), new GCMParameterSpec(TAG_BITS, iv));
        c.updateAAD(idHash(sessionId).getBytes(StandardCharsets.US_ASCII));
        return c;
    }
}
