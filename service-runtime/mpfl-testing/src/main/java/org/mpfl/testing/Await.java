package org.mpfl.testing;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The one way tests wait: poll an observable value until a condition holds, failing after a bound
 * with what was awaited and the last value seen. The bound is a give-up limit for a broken build,
 * not a measurement: it is generous (a loaded 2-core machine must never reach it) and a passing
 * test never waits longer than the condition takes. Polls start at 10 ms and back off to 200 ms.
 *
 * <pre>{@code
 * JsonNode run = Await.runEnds(Duration.ofSeconds(60), () -> http.get(url + "/api/runs/" + id).json());
 * Await.until(Duration.ofSeconds(30), "the host registered", () -> registry.hosts().size(), n -> n == 1);
 * }</pre>
 */
public final class Await {
    /** The states in which a run has ended (its record no longer changes). */
    public static final Set<String> ENDED = Set.of("SUCCEEDED", "FAILED", "CANCELLED");

    private Await() {
    }

    /** Reads the observed value; may throw (a refused connection while a server starts, say). */
    @FunctionalInterface
    public interface Read<T> {
        T get() throws Exception;
    }

    /**
     * Reads until {@code until} holds for the value read and returns that value; fails (an
     * {@link AssertionError} naming {@code what} and the last value) when {@code bound} passed first.
     */
    public static <T> T until(Duration bound, String what, Read<T> read, Predicate<? super T> until) throws Exception {
        return until(bound, () -> what, read, until);
    }

    /**
     * Like {@link #until(Duration, String, Read, Predicate)}, with the failure's explanation computed
     * only when it fails (the logs of the processes involved, say).
     */
    public static <T> T until(Duration bound, Supplier<String> what, Read<T> read, Predicate<? super T> until) throws Exception {
        long deadline = System.nanoTime() + bound.toNanos();
        long pauseMs = 10;
        for (;;) {
            T value = read.get();
            if (until.test(value)) {
                return value;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not within " + bound.toSeconds() + " s: " + what.get() + "; last seen: " + value);
            }
            Thread.sleep(pauseMs);
            pauseMs = Math.min(200, pauseMs * 2);
        }
    }

    /** Waits until {@code condition} is true (see {@link #until(Duration, String, Read, Predicate)}). */
    public static void until(Duration bound, String what, Read<Boolean> condition) throws Exception {
        until(bound, what, condition, Boolean.TRUE::equals);
    }

    /**
     * Waits until a run's detail (the engine's {@code GET /api/runs/ID}) shows it in {@code state}; fails at
     * once when the run ended in another state.
     */
    public static JsonNode runIn(Duration bound, String state, Read<JsonNode> detail) throws Exception {
        JsonNode d = until(bound, "the run in state " + state, detail, x -> x.path("state").asText().equals(state) || ended(x));
        if (!d.path("state").asText().equals(state)) {
            throw new AssertionError("the run ended without reaching state " + state + ": " + d);
        }
        return d;
    }

    /** Waits until a run's detail (the engine's {@code GET /api/runs/ID}) shows it ended, and returns it. */
    public static JsonNode runEnds(Duration bound, Read<JsonNode> detail) throws Exception {
        return until(bound, "the run ends", detail, Await::ended);
    }

    /** Like {@link #runEnds(Duration, Read)}; a failure also says {@code context} (the lab's logs, say). */
    public static JsonNode runEnds(Duration bound, Read<JsonNode> detail, Supplier<String> context) throws Exception {
        return until(bound, () -> "the run ends\n" + context.get(), detail, Await::ended);
    }

    /** Whether a run's detail shows it ended ({@link #ENDED}). */
    public static boolean ended(JsonNode detail) {
        return ENDED.contains(detail.path("state").asText());
    }
}
