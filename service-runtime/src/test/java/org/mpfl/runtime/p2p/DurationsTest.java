package org.mpfl.runtime.p2p;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Timeouts in fault messages read as people write them, not as Java's ISO-8601 durations. */
class DurationsTest {
    @Test
    void millisecondsBelowASecondSecondsAbove() {
        assertEquals("500 ms", Durations.text(500_000_000L));
        assertEquals("2 s", Durations.text(2_000_000_000L));
        assertEquals("2.5 s", Durations.text(2_500_000_000L));
        assertEquals("90 s", Durations.text(90_000_000_000L));
        assertEquals("1 ms", Durations.text(1_000_000L));
        assertEquals("250 µs", Durations.text(250_000L));
    }
}
