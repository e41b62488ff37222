package org.mpfl.engine.run;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.store.EngineDatabase;
import org.mpfl.engine.store.RunStore;

/**
 * A run whose placement marks it RUNNING while its only rank already reports DONE (fake ranks that end
 * at once, a loaded machine): both threads save the run's record. The stored record must be the
 * newer one, SUCCEEDED, whatever the order in which the two saves reach the store — before the save
 * order, the placement's older RUNNING record could land last and the ended run stayed RUNNING in
 * every list (RunQueueThroughputTest failed so in a clean CI run).
 */
class RunJournalSaveOrderTest {
    @TempDir
    Path dir;

    @Test
    void aRunningRecordTakenBeforeTheEndNeverOverwritesTheEndedRecord() throws Exception {
        int runs = 1500;
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (EngineDatabase db = EngineDatabase.openEmbedded(dir)) {
            RunStore store = db.runs();
            RunJournal journal = new RunJournal(store);
            List<String> stale = new ArrayList<>();
            for (int i = 0; i < runs; i++) {
                Run run = new Run("r" + i, "ring", "d" + i, "t" + i, Map.of(), System.currentTimeMillis());
                journal.persist(run);
                CyclicBarrier both = new CyclicBarrier(2);
                Future<?> placement = pool.submit(() -> {
                    both.await();
                    if (run.markRunning(System.currentTimeMillis(), true)) {
                        journal.persist(run);
                    }
                    return null;
                });
                Future<?> rankDone = pool.submit(() -> {
                    both.await();
                    if (run.finish(RunState.SUCCEEDED, null, System.currentTimeMillis())) {
                        journal.persist(run);
                    }
                    return null;
                });
                placement.get(30, TimeUnit.SECONDS);
                rankDone.get(30, TimeUnit.SECONDS);
                String stored = store.run(run.id()).orElseThrow().state();
                if (!stored.equals("SUCCEEDED")) {
                    stale.add(run.id() + " stored " + stored);
                }
            }
            assertEquals(List.of(), stale, "ended runs whose stored record is an older one");
        } finally {
            pool.shutdownNow();
        }
    }
}
