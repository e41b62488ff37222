package org.mpfl.engine.capacity;

/**
 * What a scheduler's own limits allow the engine's jobs, as a {@link CapacityProvider} reads them (a partition's nodes
 * and their CPUs): at most {@code jobs} jobs of the engine's size at once, whatever {@code --max-nodes} says.
 *
 * @param jobs how many jobs of {@link CapacitySettings#cpusPerNode} CPUs can run at once at most
 * @param why  where that comes from, as users read it ({@code partition 'debug' has 1 node: vm 2 CPUs})
 */
public record JobsAtOnce(int jobs, String why) {
}
