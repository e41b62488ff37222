package org.mpfl.engine.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.mpfl.engine.run.checkpoint.CheckpointStore;
import org.mpfl.protocol.Endpoint;
import org.mpfl.protocol.RankEvent;

/**
 * An attempt resumed from a checkpoint starts where the run was when that checkpoint was taken, not at 0: each rank
 * that reported {@code <progress>} before reads the checkpoint's progress, marked {@code progressFromCheckpoint}, until
 * it reports its own (the console showed 0 % until then). A rank that never reported progress is not made to.
 */
class ResumedProgressTest {
    private static final List<RankPlacement> PLACES = List.of(
            new RankPlacement(0, "p", "s", "h", new Endpoint("http://h/s", null, "h")),
            new RankPlacement(1, "p", "s", "h", new Endpoint("http://h/s", null, "h")),
            new RankPlacement(2, "p", "s", "h", new Endpoint("http://h/s", null, "h")));

    private static long seq;

    private static void event(Run run, int rank, RankEvent.Type type, Object value) {
        run.apply(new RankEvent(run.domainId(), rank, ++seq, System.currentTimeMillis(), type, null, null, null, null, null, null, value));
    }

    /** Run r1 of 3 ranks; ranks 0 and 1 report progress (40 of 100 at checkpoint 1, 60 after it), rank 2 none; then cancelled. */
    private static Run cancelledAfterCheckpoint() {
        Run run = new Run("r1", "ring", "d1", "t1", Map.of(), 1000);
        run.placed(PLACES);
        run.markRunning(System.currentTimeMillis(), true);
        for (int r = 0; r < 2; r++) {
            event(run, r, RankEvent.Type.PROGRESS, Map.of("value", 40, "total", 100));
        }
        run.history().checkpoint(new CheckpointStore.Checkpoint(1, 1, 3, 3, 30, 1, 2));
        event(run, 0, RankEvent.Type.CHECKPOINT, Map.of("checkpoint", 1, "bytes", 10, "ms", 3, "stored", true));
        for (int r = 0; r < 2; r++) {
            event(run, r, RankEvent.Type.PROGRESS, Map.of("value", 60, "total", 100));
        }
        run.finish(RunState.CANCELLED, new RunError(null, null, "cancelled by user"), System.currentTimeMillis());
        return run;
    }

    private static JsonNode detail(Run run) {
        return run.record().detail();
    }

    @Test
    void aResumedAttemptStartsAtItsCheckpointsProgressUntilItsRanksReport() {
        Run run = cancelledAfterCheckpoint();
        run.reopen("d2", "t2");
        run.history().next(RunAttempts.RESUMED_CAUSE, 1L, null, null);
        assertEquals(0.4, detail(run).path("progress").asDouble(), 1e-9, "waiting for its places: where checkpoint 1 was, not 0");
        assertEquals(1, detail(run).path("progressFromCheckpoint").asInt());

        run.placed(PLACES);
        JsonNode d = detail(run);
        for (int r = 0; r < 2; r++) {
            assertEquals(40.0, d.at("/ranks/" + r + "/progress/value").asDouble(), d.toString());
            assertEquals(1, d.at("/ranks/" + r + "/progressFromCheckpoint").asInt(), d.toString());
        }
        assertEquals(0.0, d.at("/ranks/2/progress/total").asDouble(), "a rank that never reported progress is not made to");
        assertTrue(d.at("/ranks/2/progressFromCheckpoint").isNull());
        assertEquals(0.4, d.path("progress").asDouble(), 1e-9);

        event(run, 0, RankEvent.Type.PROGRESS, Map.of("value", 45, "total", 100));
        d = detail(run);
        assertTrue(d.at("/ranks/0/progressFromCheckpoint").isNull(), "its own report replaces the checkpoint's");
        assertEquals(45.0, d.at("/ranks/0/progress/value").asDouble());
        assertEquals(1, d.path("progressFromCheckpoint").asInt(), "rank 1 still reads checkpoint 1's");
        // a status answer without progress (none reported yet on the host) leaves the checkpoint's progress
        run.applyStatus("d2", 1, new RankStatus("RUNNING", null, null, null, null, null, null), System.currentTimeMillis());
        assertEquals(40.0, detail(run).at("/ranks/1/progress/value").asDouble());
    }

    @Test
    void anAttemptFromTheStartStartsAtZero() {
        Run run = cancelledAfterCheckpoint();
        run.reopen("d2", "t2");
        run.history().next(RunAttempts.RESUMED_CAUSE, null, null, null);
        run.placed(PLACES);
        JsonNode d = detail(run);
        assertEquals(0.0, d.at("/ranks/0/progress/total").asDouble(), d.toString());
        assertTrue(d.path("progressFromCheckpoint").isNull());
    }
}
