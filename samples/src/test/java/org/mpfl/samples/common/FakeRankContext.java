package org.mpfl.samples.common;

import java.util.Map;
import org.mpfl.runtime.api.ActivityContext;

/** What an activity sees of rank {@code rank} of a one-process workflow with {@code size} ranks, without a runtime. */
public record FakeRankContext(int rank, int size, Map<String, Object> params) implements ActivityContext {
    public FakeRankContext(int rank, int size) {
        this(rank, size, Map.of());
    }

    @Override
    public int processRank() {
        return rank;
    }

    @Override
    public int processSize() {
        return size;
    }

    @Override
    public void log(String level, String message) {
        System.out.println("[rank " + rank + " " + level + "] " + message);
    }
}
