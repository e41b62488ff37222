package org.mpfl.engine.access;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/**
 * The console's pending logins stay bounded without ever refusing a new one: an address that starts more than its
 * share displaces its own oldest, and when all places are taken by many addresses the oldest login of all goes.
 * ({@code ConsoleSessionStoreTest} floods a real engine's login route from an address of its own.)
 */
class PendingLoginsTest {
    @Test
    void oneAddressStartingLoginsDisplacesOnlyItsOwn() {
        PendingLogins<String> logins = new PendingLogins<>(1_000, 8, 600_000);
        logins.add("victim", "v", "10.0.0.1", 0);
        for (int i = 0; i < 5_000; i++) {
            logins.add("flood-" + i, "f", "10.0.0.66", 1);
        }
        assertEquals(9, logins.size(), "the victim's login and the attacker's newest 8");
        assertNull(logins.take("flood-4991", 1), "displaced by the address's own newer logins");
        assertEquals("f", logins.take("flood-4992", 1));
        assertEquals("v", logins.take("victim", 1));
        assertNull(logins.take("victim", 1), "taken once");
    }

    @Test
    void whenEveryPlaceIsTakenTheOldestLoginOfAllGoes() {
        PendingLogins<String> logins = new PendingLogins<>(1_000, 8, 600_000);
        for (int i = 0; i < 1_000; i++) {
            logins.add("s" + i, "x", "10.0." + i / 250 + "." + i % 250, i);
        }
        logins.add("late", "l", "192.0.2.1", 2_000);
        assertEquals(1_000, logins.size());
        assertNull(logins.take("s0", 2_000), "the oldest made room");
        assertEquals("x", logins.take("s1", 2_000));
        assertEquals("l", logins.take("late", 2_000), "a new login is never refused");
    }

    @Test
    void aLoginOlderThanItsLifetimeIsGone() {
        PendingLogins<String> logins = new PendingLogins<>(1_000, 8, 600_000);
        logins.add("old", "o", "10.0.0.1", 0);
        assertNull(logins.take("old", 600_001));
        logins.add("older", "o", "10.0.0.1", 0);
        logins.add("new", "n", "10.0.0.2", 600_001);
        assertEquals(1, logins.size(), "expired logins are dropped when a new one comes");
    }
}
