package org.mpfl.engine.cli;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.ref.Reference;
import java.net.http.HttpClient;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Before its exit, mpflc ends the selector threads of the JDK HTTP clients the command used: one left
 * in native code made HotSpot's exit wait 300 ms after every command that spoke HTTP.
 *
 * <p>The process ends every selector; this test ends only its own client's
 * ({@code endHttpClientSelectors(ours::contains)}): the engine module's other tests share this JVM, and
 * a shared client without the thread that drives its requests and timeouts hung the next test's
 * request for ever (seen: EnginePortTest after this test).
 */
class MpflcExitTest {
    private static Set<Thread> selectors() {
        Set<Thread> out = new HashSet<>();
        Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().matches("HttpClient-\\d+-SelectorManager")).forEach(out::add);
        return out;
    }

    @Test
    void theHttpClientsSelectorThreadsEndBeforeTheExit() throws Exception {
        Set<Thread> before = selectors();
        HttpClient client = HttpClient.newHttpClient();
        Set<Thread> ours = selectors();
        ours.removeAll(before);
        assertFalse(ours.isEmpty(), "the client's selector thread (named as the JDK names it) runs from its creation");
        Mpflc.endHttpClientSelectors(ours::contains);
        for (Thread t : ours) {
            t.join(10_000);
            assertFalse(t.isAlive(), t.getName() + " still runs");
        }
        assertTrue(ours.stream().noneMatch(Thread::isAlive));
        Reference.reachabilityFence(client);
    }
}
