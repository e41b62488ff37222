package org.mpfl.protocol.digest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class Sha256Test {
    @Test
    void matchesThePublishedTestVectors() {
        // FIPS 180-2 examples: the empty message and "abc"
        assertEquals("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", Sha256.hex(new byte[0]));
        assertEquals("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", Sha256.hex("abc"));
    }

    @Test
    void theRawDigestIsWhatTheHexSpells() {
        byte[] raw = Sha256.of("abc".getBytes(StandardCharsets.UTF_8));
        assertEquals(32, raw.length);
        assertEquals(Sha256.hex("abc"), java.util.HexFormat.of().formatHex(raw));
    }

    @Test
    void textIsDigestedAsUtf8() {
        String text = "Grüße, ρ";
        assertEquals(Sha256.hex(text.getBytes(StandardCharsets.UTF_8)), Sha256.hex(text));
        assertNotEquals(Sha256.hex(text.getBytes(StandardCharsets.ISO_8859_1)), Sha256.hex(text));
    }
}
