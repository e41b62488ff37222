package org.mpfl.engine.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.lang.ref.Reference;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.mpfl.testing.StartsProcesses;

/**
 * Before its exit, mpflc ends the selector threads of the JDK HTTP clients the command used: one left
 * in native code made HotSpot's exit wait 300 ms after every command that spoke HTTP.
 *
 * <p>The check runs in a JVM of its own ({@link Child}): ending every HTTP client's selector thread is
 * what a process does on its way out, and in the test JVM it left the shared clients of the other
 * tests (e.g. {@code org.mpfl.engine.Http}'s) without the thread that drives their requests and
 * timeouts, so that the next test's request hung for ever (seen: EnginePortTest after this test).
 */
@StartsProcesses
class MpflcExitTest {
    private static Set<Thread> selectors() {
        Set<Thread> out = new HashSet<>();
        Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().matches("HttpClient-\\d+-SelectorManager")).forEach(out::add);
        return out;
    }

    @Test
    void theHttpClientsSelectorThreadsEndBeforeTheExit() throws Exception {
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        Process p = new ProcessBuilder(java, "-Xmx128m", "-cp", System.getProperty("java.class.path"), Child.class.getName())
                .redirectErrorStream(true).start();
        try {
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the child JVM did not end");
            String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, p.exitValue(), said);
            assertTrue(said.contains("selector threads ended: "), said);
        } finally {
            p.destroyForcibly();
        }
    }

    /** The check, in the child JVM: exit 0 when every selector thread of a fresh client ended, else 1 saying why. */
    public static final class Child {
        public static void main(String[] args) throws Exception {
            Set<Thread> before = selectors();
            HttpClient client = HttpClient.newHttpClient();
            Set<Thread> ours = selectors();
            ours.removeAll(before);
            if (ours.isEmpty()) {
                System.out.println("the client's selector thread (named as the JDK names it) does not run from its creation");
                System.exit(1);
            }
            Mpflc.endHttpClientSelectors();
            for (Thread t : ours) {
                t.join(10_000);
                if (t.isAlive()) {
                    System.out.println(t.getName() + " still runs");
                    System.exit(1);
                }
            }
            Reference.reachabilityFence(client);
            System.out.println("selector threads ended: " + ours.size());
            System.exit(0);
        }
    }
}
