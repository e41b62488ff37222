package org.mpfl.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** A rank event's message is bounded, keeping its start and end, wherever the event is made or read. */
class RankEventMessageTest {
    private static final int MAX = RankEvent.MAX_MESSAGE_CHARS;

    @Test
    void aMessageWithinTheBoundIsKeptAsItIs() {
        String text = "x".repeat(MAX);
        assertSame(text, RankEvent.bounded(text));
        assertNull(RankEvent.bounded(null));
    }

    @Test
    void aLongerMessageKeepsItsStartAndEndAndSaysHowMuchIsLeftOut() {
        String text = "Traceback (most recent call last):\n" + "y".repeat(10_000_000) + "\nValueError: the end";
        String cut = RankEvent.bounded(text);
        assertWithinAndNearTheBound(cut);
        assertTrue(cut.startsWith("Traceback (most recent call last):\nyyy"), cut.substring(0, 50));
        assertTrue(cut.endsWith("yyy\nValueError: the end"), cut.substring(cut.length() - 50));
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\n\\[\\.\\.\\. (\\d+) characters left out \\.\\.\\.\\]\n")
                .matcher(cut);
        assertTrue(m.find(), "the marker");
        int leftOut = Integer.parseInt(m.group(1));
        assertEquals(text.length(), cut.length() - m.group().length() + leftOut, "what is kept and what is left out add up");
        assertTrue(m.start() > cut.length() / 2, "more of the start than of the end is kept: " + m.start());
    }

    @Test
    void boundingTwiceChangesNothing() {
        String once = RankEvent.bounded("z".repeat(3 * MAX));
        assertSame(once, RankEvent.bounded(once));
    }

    @Test
    void noCharacterIsCutInHalf() {
        // an emoji is two chars (a surrogate pair); every cut position falls on one of them in turn
        for (int shift = 0; shift < 2; shift++) {
            String text = "a".repeat(shift) + "😀".repeat(MAX);
            String cut = RankEvent.bounded(text);
            for (int i = 0; i < cut.length(); i++) {
                char c = cut.charAt(i);
                if (Character.isHighSurrogate(c)) {
                    assertTrue(i + 1 < cut.length() && Character.isLowSurrogate(cut.charAt(i + 1)), "half a pair at " + i);
                } else if (Character.isLowSurrogate(c)) {
                    assertTrue(i > 0 && Character.isHighSurrogate(cut.charAt(i - 1)), "half a pair at " + i);
                }
            }
        }
    }

    @Test
    void anEventMadeOrReadWithALongMessageCarriesItBounded() throws Exception {
        RankEvent made = new RankEvent("d", 1, 0, 0, RankEvent.Type.LOG, null, null, null, "w".repeat(2 * MAX), "info", null,
                null);
        assertWithinAndNearTheBound(made.message());
        // as the engine reads a host's post: Jackson through the record's canonical constructor
        ObjectMapper json = new ObjectMapper();
        String posted = json.writeValueAsString(java.util.Map.of("domainId", "d", "rank", 1, "seq", 0, "timeMs", 0,
                "type", "LOG", "message", "w".repeat(2 * MAX)));
        assertWithinAndNearTheBound(json.readValue(posted, RankEvent.class).message());
    }

    /** At most the bound; short of it only by the marker's count having fewer digits than the text's length. */
    private static void assertWithinAndNearTheBound(String cut) {
        assertTrue(cut.length() <= MAX && cut.length() > MAX - 10, cut.length() + " characters");
    }
}
