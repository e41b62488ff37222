package org.mpfl.protocol.guard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ConnectionGuardTest {
    static final InetAddress A = address("10.77.0.50");
    static final InetAddress B = address("10.77.0.51");
    static final InetAddress ENGINE = address("10.77.0.2");

    static InetAddress address(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    static ConnectionGuard guard(Duration deadline, int perSource, int strangers) {
        return new ConnectionGuard("test", new ConnectionGuard.Limits(deadline, perSource, strangers, Duration.ofMinutes(1)));
    }

    @Test
    void oneSourceGetsAtMostItsShareAndTheOthersStillGetIn() throws Exception {
        try (ConnectionGuard g = guard(Duration.ofMinutes(1), 3, 5)) {
            List<ConnectionGuard.Pass> a = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                a.add(g.admit(A, null).orElseThrow());
            }
            assertTrue(g.admit(A, null).isEmpty(), "a fourth stranger connection from A is refused");
            assertTrue(g.admit(B, null).isPresent());
            assertTrue(g.admit(B, null).isPresent());
            assertTrue(g.admit(B, null).isEmpty(), "the strangers' total (5) is reached");
            assertEquals(2, g.refused());
            a.get(0).close();
            a.get(0).close(); // idempotent: frees one place, not two
            Thread.sleep(1_100); // past the admission-rate window
            assertTrue(g.admit(A, null).isPresent(), "a closed connection frees its place");
            assertTrue(g.admit(A, null).isEmpty());
        }
    }

    @Test
    void aSourceOpensAtMostPerSourceNewConnectionsASecond() throws Exception {
        try (ConnectionGuard g = guard(Duration.ofMinutes(1), 3, 10)) {
            for (int i = 0; i < 3; i++) {
                g.admit(A, null).orElseThrow().close(); // a handshake flood: open, close, again
            }
            assertTrue(g.admit(A, null).isEmpty(), "a fourth new connection within the second is refused, though none is open");
            assertTrue(g.admit(B, null).isPresent(), "another source is not held back");
            Thread.sleep(1_100);
            assertTrue(g.admit(A, null).isPresent(), "the next second admits again");
        }
    }

    @Test
    void knownAddressesUseTheReserveHoweverManyStrangersThereAre() {
        try (ConnectionGuard g = guard(Duration.ofMinutes(1), 2, 2)) {
            g.trust(ENGINE);
            g.admit(A, null).orElseThrow();
            g.admit(B, null).orElseThrow();
            assertTrue(g.admit(B, null).isEmpty(), "strangers are at their limit");
            for (int i = 0; i < 10; i++) {
                ConnectionGuard.Pass p = g.admit(ENGINE, null).orElseThrow();
                assertFalse(p.stranger());
            }
            assertFalse(g.admit(InetAddress.getLoopbackAddress(), null).orElseThrow().stranger(), "loopback is known");
        }
    }

    @Test
    void provingFreesTheStrangersPlaceAndMakesTheAddressKnown() throws Exception {
        try (ConnectionGuard g = guard(Duration.ofMinutes(1), 1, 1)) {
            ConnectionGuard.Pass p = g.admit(A, null).orElseThrow();
            assertTrue(p.stranger());
            assertTrue(g.admit(B, null).isEmpty());
            p.prove();
            assertFalse(p.stranger());
            assertEquals(0, g.strangers());
            assertTrue(g.known(A));
            assertFalse(g.admit(A, null).orElseThrow().stranger(), "A proved itself: its next connections are known");
            p.close();
            assertEquals(0, g.strangers(), "closing a proven connection does not free a stranger's place twice");
            Thread.sleep(1_100); // past the admission-rate window
            assertTrue(g.admit(B, null).isPresent());
        }
    }

    @Test
    void anUnprovenConnectionIsClosedAtItsDeadlineAndAProvenOneIsNot() throws Exception {
        try (ConnectionGuard g = guard(Duration.ofMillis(200), 4, 4)) {
            CountDownLatch closed = new CountDownLatch(1);
            AtomicInteger provenClosed = new AtomicInteger();
            long t0 = System.nanoTime();
            g.admit(A, closed::countDown).orElseThrow();
            ConnectionGuard.Pass proven = g.admit(B, provenClosed::incrementAndGet).orElseThrow();
            proven.prove();
            // the reaper looks every 50 ms: closed at 200-250 ms; 5 s is only the bound of a hang
            assertTrue(closed.await(5, TimeUnit.SECONDS), "the stalled connection was closed");
            assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(200), "not before its deadline");
            Thread.sleep(400);
            assertEquals(0, provenClosed.get(), "a proven connection has no deadline");
            assertEquals(1, g.expired());
        }
    }

    @Test
    void armingAgainGivesAKeepAliveConnectionsNextRequestTheDeadlineAnew() throws Exception {
        try (ConnectionGuard g = guard(Duration.ofSeconds(1), 4, 4)) {
            AtomicInteger closes = new AtomicInteger();
            ConnectionGuard.Pass p = g.admit(A, closes::incrementAndGet).orElseThrow();
            for (int i = 0; i < 4; i++) {
                Thread.sleep(300);
                p.arm();
            }
            assertEquals(0, closes.get(), "re-armed within its deadline every time (1.2 s in all > 1 s; 700 ms of margin per step for a loaded machine)");
        }
    }
}
