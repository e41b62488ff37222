package org.mpfl.engine.capacity;

import java.time.Duration;

/**
 * How much capacity a provider may bring, and for how long an idle host is kept.
 *
 * @param maxNodes     never more jobs (nodes) at once, pending or running
 * @param cpusPerNode  each job's host capacity (ranks)
 * @param idleRelease  a host that holds no rank while no run waits is released after this long
 * @param pollInterval how often the scheduler is asked about the jobs
 */
public record CapacitySettings(int maxNodes, int cpusPerNode, Duration idleRelease, Duration pollInterval) {
    public CapacitySettings {
        if (maxNodes < 1 || cpusPerNode < 1) {
            throw new IllegalArgumentException("--max-nodes and --cpus-per-node must be at least 1");
        }
        if (pollInterval.isNegative() || pollInterval.isZero()) {
            throw new IllegalArgumentException("--poll-interval must be positive");
        }
        if (idleRelease.isNegative()) {
            throw new IllegalArgumentException("--idle-release must be at least 0 seconds");
        }
    }
}
