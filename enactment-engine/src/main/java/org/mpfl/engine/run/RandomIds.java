package org.mpfl.engine.run;

import java.security.SecureRandom;
import java.util.Base64;

/** Random, unguessable identifiers: run IDs, domain IDs and tokens. */
public final class RandomIds {
    private static final SecureRandom RANDOM = new SecureRandom();

    private RandomIds() {
    }

    /** {@code bytes} random bytes, base64url without padding. */
    public static String of(int bytes) {
        byte[] b = new byte[bytes];
        RANDOM.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    /** A new domain ID. */
    public static String domainId() {
        return of(24);
    }

    /** A new domain token. */
    public static String domainToken() {
        return of(32);
    }
}
