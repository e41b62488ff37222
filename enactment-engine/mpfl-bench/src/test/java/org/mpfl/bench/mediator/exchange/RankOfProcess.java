package org.mpfl.bench.mediator.exchange;

import java.util.Map;
import org.mpfl.runtime.api.ActivityContext;

/** What an activity sees of rank {@code rank} of a one-process workflow of {@code size} ranks, for calling activities directly in tests. */
public record RankOfProcess(int rank, int size) implements ActivityContext {
    @Override
    public int processRank() {
        return rank;
    }

    @Override
    public int processSize() {
        return size;
    }

    @Override
    public Map<String, Object> params() {
        return Map.of();
    }

    @Override
    public void log(String level, String message) {
        // activities under test have nothing to report
    }
}
