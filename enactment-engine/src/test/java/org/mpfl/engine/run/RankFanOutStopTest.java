package org.mpfl.engine.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadPoolExecutor;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link RankFanOut#stop}: a call that outlived its fan-out's timeout (a host that never answers) is interrupted,
 * and the stop returns only once the pool's threads are idle, so that no call ends after Camel stopped: Camel would
 * refuse to finish its exchange then and log a "Failed delivery … RejectedExecutionException" for each (seen in a
 * full-tier run under load, before the stop waited). A call that begins after the stop is not made.
 */
@Timeout(60)
class RankFanOutStopTest {
    @Test
    void theStopInterruptsCallsThatOutlivedTheirFanOutAndReturnsWhenThePoolIsIdle() throws Exception {
        ThreadPoolExecutor pool = (ThreadPoolExecutor) Executors.newFixedThreadPool(2);
        try (DefaultCamelContext camel = new DefaultCamelContext()) {
            RankFanOut fanOut = RankFanOut.install(camel, pool, Duration.ofMillis(200));
            camel.start();
            RankFanOut.RankCall hanging = new RankFanOut.RankCall(0, () -> Thread.sleep(100_000));
            fanOut.callAll(List.of(hanging)); // returns at the fan-out's timeout, the call still under way
            assertFalse(hanging.done());
            assertEquals(1, pool.getActiveCount());

            fanOut.stop(Duration.ofSeconds(30));
            assertEquals(0, pool.getActiveCount(), "the stop returned with a call still ending");
            assertTrue(hanging.done());
            assertInstanceOf(InterruptedException.class, hanging.failure());

            RankFanOut.RankCall late = new RankFanOut.RankCall(1, () -> {
                throw new AssertionError("a call made after the stop");
            });
            fanOut.callAll(List.of(late));
            assertInstanceOf(CancellationException.class, late.failure());
        } finally {
            pool.shutdownNow();
        }
    }
}
