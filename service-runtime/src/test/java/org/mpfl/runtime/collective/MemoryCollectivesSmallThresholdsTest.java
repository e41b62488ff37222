package org.mpfl.runtime.collective;

import java.util.Map;

/**
 * The suite again with tiny thresholds, so that {@code auto} takes the long-message algorithms on
 * small data too, and with ranks on three simulated hosts.
 */
class MemoryCollectivesSmallThresholdsTest extends MemoryCollectivesTest {
    @Override
    protected int hostCount() {
        return 3;
    }

    @Override
    protected CollectiveConfig config() {
        return new CollectiveConfig(16, 3, 16, 3, 3, 2, true, Map.of());
    }
}
