/**
 * Internal: the collective operations of the MPIWS runtime, built on point-to-point.
 *
 * <p>{@link org.mpfl.runtime.collective.Collectives} runs barrier, bcast, scatter, gather, allgather,
 * reduce, allreduce, alltoall and scan over a {@link org.mpfl.runtime.collective.CollectiveChannel}
 * (point-to-point on a communicator's private context; {@link org.mpfl.runtime.collective.P2PCollectiveChannel}
 * is the one over the runtime). Several algorithms per operation, selectable by name
 * ({@link org.mpfl.ir.semantics.CollectiveAlgorithms}, the table the compiler checks documents against) or chosen by {@code auto} from message
 * size, communicator size and placement on hosts ({@link org.mpfl.runtime.collective.CollectiveConfig}).
 * Primitive arrays are never serialised; reductions work in place on the received arrays.
 * The benchmark of these algorithms, {@code mpflc bench collectives}, lives in the bench module
 * ({@code org.mpfl.bench.collective}), outside the runtime.
 */
package org.mpfl.runtime.collective;
