package org.mpfl.engine.access;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Map;
import java.util.stream.Collectors;

/** What OAuth 2.0 requests are made of: form-encoded fields and the PKCE S256 challenge (RFC 7636). */
public final class OAuthForms {
    private OAuthForms() {
    }

    /** {@code application/x-www-form-urlencoded} of the fields, in their order. */
    public static String form(Map<String, String> fields) {
        return fields.entrySet().stream().map(e -> java.net.URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "="
                + java.net.URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8)).collect(Collectors.joining("&"));
    }

    /** The S256 code challenge of a PKCE verifier: base64url (no padding) of its SHA-256. */
    public static String s256(String verifier) {
        try {
            return Base64.getUrlEncoder().withoutPadding().encodeToString(
                    MessageDigest.getInstance("SHA-256").digest(verifier.getBytes(StandardCharsets.US_ASCII)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK always has SHA-256", e);
        }
    }
}
