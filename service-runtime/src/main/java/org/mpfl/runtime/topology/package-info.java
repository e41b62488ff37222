/**
 * Internal: communicators beyond point-to-point. {@link org.mpfl.runtime.topology.CollectiveCommunicator}
 * is the runtime's complete {@link org.mpfl.runtime.api.Communicator} (world, per-process MPMD
 * communicators, split, dup); {@link org.mpfl.runtime.topology.CartesianGridCommunicator} adds a
 * Cartesian layout ({@link org.mpfl.runtime.topology.CartesianTopology}, {@link org.mpfl.runtime.topology.Dims}).
 * Context ids are agreed by the members without a central service ({@link org.mpfl.runtime.topology.ContextAllocator}).
 */
package org.mpfl.runtime.topology;
