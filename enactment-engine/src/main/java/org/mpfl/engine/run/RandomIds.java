package org.mpfl.engine.run;

import java.security.SecureRandom;
import java.util.Base64;

/** Random, unguessable identifiers: run IDs, domain IDs and tokens. */
public final class RandomIds {
    private static final SecureRandom RANDOM = new SecureRandom();

    private RandomIds() {
    }

    /**
     * {@code bytes} random bytes, base64url without padding, never beginning with {@code -}: IDs are given
     * to {@code mpflc status/resume/cancel ID}, whose parser takes a leading {@code -} for an option (1 in 64
     * run IDs did: RestartTest failed on {@code unknown option --epE7Z0ylTQbcj0} under stress). Drawing again
     * costs one bit of the first character's six in 1 of 64 IDs.
     */
    public static String of(int bytes) {
        byte[] b = new byte[bytes];
        String id;
        do {
            RANDOM.nextBytes(b);
            id = Base64.getUrlEncoder().withoutPadding().encodeToString(b);
        } while (id.startsWith("-"));
        return id;
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
