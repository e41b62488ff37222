/**
 * Internal: the runtime's complete {@link org.mpfl.runtime.api.Communicator}, built on the
 * point-to-point layer ({@code p2p}) and the collectives engine ({@code collective}).
 * {@link org.mpfl.runtime.topology.CollectiveCommunicator} adds collectives and communicator
 * creation (world, per-process MPMD communicators, split, dup) to
 * {@link org.mpfl.runtime.p2p.P2PCommunicator}; {@link org.mpfl.runtime.topology.CartesianGridCommunicator}
 * adds a Cartesian layout ({@link org.mpfl.runtime.topology.CartesianTopology},
 * {@link org.mpfl.runtime.topology.Dims}). Context ids are agreed by the members without a central
 * service ({@link org.mpfl.runtime.topology.ContextAllocator}).
 *
 * <p>{@link org.mpfl.runtime.topology.RankRuntime} is what the runtime offers an internal rank
 * program (the interpreter) about its rank beyond the public API — abort state, world ranks behind
 * communicator ranks, barrier algorithms — handed over through the rank context, so programs never
 * look behind the public {@code Communicator} themselves.
 *
 * <p>Layering (each package uses only those to its left, plus {@code api}): {@code transport} ←
 * {@code p2p} ← {@code collective} ← this package ← {@code interp}, {@code host}.
 */
package org.mpfl.runtime.topology;
