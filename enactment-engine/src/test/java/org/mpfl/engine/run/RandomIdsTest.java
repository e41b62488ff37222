package org.mpfl.engine.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** IDs go on command lines ({@code mpflc resume ID}): none may look like an option. */
class RandomIdsTest {

    @Test
    void noIdBeginsWithADashAndAllAreDistinct() {
        Set<String> seen = new HashSet<>();
        // 20,000 draws: with 1 in 64 beginning with '-' before the fix, ~312 of them would have
        for (int i = 0; i < 20_000; i++) {
            String id = RandomIds.of(12);
            assertFalse(id.startsWith("-"), id);
            assertEquals(16, id.length(), id);
            assertTrue(id.matches("[A-Za-z0-9_-]+"), id);
            seen.add(id);
        }
        assertEquals(20_000, seen.size(), "unguessable IDs do not repeat");
        assertFalse(RandomIds.domainId().startsWith("-"));
    }
}
