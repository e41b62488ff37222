package org.mpfl.engine.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code mpflc run --local} with a document that does not compile gives its background cluster start up
 * ({@link LocalCluster.Starting#abandon}): the caller goes on while the start still runs, and the clean-up
 * runs once the start ended. No engine is started here: the launcher stands for a start that takes long.
 */
@Timeout(60)
class AbandonedStartTest {

    @Test
    void abandonReturnsWhileTheStartStillRunsAndCleansUpOnceItEnds() throws Exception {
        CountDownLatch startMayEnd = new CountDownLatch(1);
        CountDownLatch startBegan = new CountDownLatch(1);
        AtomicInteger cleanups = new AtomicInteger();
        CountDownLatch cleaned = new CountDownLatch(1);
        LocalCluster.Starting starting = LocalCluster.startInBackground(guard -> {
            startBegan.countDown();
            startMayEnd.await();
            throw new java.io.IOException("stands for a start that ended after the caller gave it up");
        }, Duration.ofSeconds(30), () -> {
            cleanups.incrementAndGet();
            cleaned.countDown();
        });
        assertTrue(startBegan.await(10, TimeUnit.SECONDS), "the start began");

        // returns although the start is blocked: nothing here waits for it
        starting.abandon();
        assertEquals(0, cleanups.get(), "no clean-up while the start still runs (it would still write into what is cleaned)");

        startMayEnd.countDown();
        assertTrue(cleaned.await(10, TimeUnit.SECONDS), "the clean-up ran once the start ended");
        assertEquals(1, cleanups.get());
    }

    @Test
    void abandoningAStartThatAlreadyFailedCleansUpAtOnce() throws Exception {
        AtomicInteger cleanups = new AtomicInteger();
        LocalCluster.Starting starting = LocalCluster.startInBackground(guard -> {
            throw new java.io.IOException("failed at once");
        }, Duration.ofSeconds(30), cleanups::incrementAndGet);
        assertFalse(awaitSucceeds(starting), "the start failed");
        starting.abandon();
        assertEquals(1, cleanups.get(), "a start that already ended is cleaned up by abandon itself");
    }

    private static boolean awaitSucceeds(LocalCluster.Starting starting) throws InterruptedException {
        try {
            starting.await();
            return true;
        } catch (Exception e) {
            return false;
        }
    }
}
