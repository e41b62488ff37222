package org.mpfl.engine.capacity;

import java.time.Duration;

/**
 * How much capacity a provider may bring, and for how long an idle host is kept.
 *
 * @param maxNodes     never more jobs (nodes) at once, pending or running
 * @param cpusPerNode  each job's host capacity (ranks)
 * @param idleRelease  a host that holds no rank while no run waits is released after this long
 * @param pollInterval how often the scheduler is asked about the jobs
 * @param joinTimeout  a job that runs this long without its host joining is cancelled (its node cannot reach the
 *                     engine, or its host does not start: a host that never reached its engine retries for ever)
 */
public record CapacitySettings(int maxNodes, int cpusPerNode, Duration idleRelease, Duration pollInterval, Duration joinTimeout) {
    /** {@code --join-timeout}'s default: a host JVM starts in seconds; minutes leave room for a slow shared file system. */
    public static final Duration DEFAULT_JOIN_TIMEOUT = Duration.ofSeconds(300);

    /** With the {@linkplain #DEFAULT_JOIN_TIMEOUT default join timeout}. */
    public CapacitySettings(int maxNodes, int cpusPerNode, Duration idleRelease, Duration pollInterval) {
        this(maxNodes, cpusPerNode, idleRelease, pollInterval, DEFAULT_JOIN_TIMEOUT);
    }

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
        if (joinTimeout.isNegative() || joinTimeout.isZero()) {
            throw new IllegalArgumentException("--join-timeout must be positive");
        }
    }
}
