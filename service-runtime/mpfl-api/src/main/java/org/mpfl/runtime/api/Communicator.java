package org.mpfl.runtime.api;

import java.time.Duration;

/**
 * A group of ranks of one communication domain that exchange messages, MPI-style.
 *
 * <p><b>Values.</b> A message carries one value: {@code int[]}, {@code long[]}, {@code double[]},
 * {@code byte[]} (the MPFL type {@code bytes}), {@link String}, {@link Integer}, {@link Long},
 * {@link Double}, {@link Boolean}, or an object value (the MPFL type {@code object}): JDK value kinds
 * (boxed primitives, strings, primitive arrays, lists, sets and maps of object values) and the
 * rank program's value classes (its allow-list, docs/wire-format.md "object values"), sent as JSON.
 * Nothing travels through Java serialisation. A received value is always a fresh copy: after
 * {@code send} returns, the sender may reuse its array.
 *
 * <p><b>Matching and order</b> are MPI's: a receive matches on (communicator, source or
 * {@link #ANY_SOURCE}, tag or {@link #ANY_TAG}); two messages from one sender to one receiver on one
 * communicator are received in the order sent. A peer of {@link #PROC_NULL} makes the operation a
 * no-op. Every blocking call fails with {@link DomainAbortedException} within a second of the domain
 * being aborted.
 */
public interface Communicator {
    /** Wildcard source for receives. */
    int ANY_SOURCE = -2;
    /** Wildcard tag for receives. */
    int ANY_TAG = -1;
    /** The null peer: sends to it and receives from it complete at once and move nothing. */
    int PROC_NULL = -1;

    /** This rank's number in this communicator, {@code 0..size()-1}. */
    int rank();

    /** Number of ranks in this communicator. */
    int size();

    /** The name of this communicator ({@code world}, a process name, or a user-given name). */
    String name();

    // ---------------------------------------------------------------- point-to-point

    /** Standard send: returns once the transport has taken the message; never waits for the receiver. */
    void send(Object value, int dest, int tag);

    /** Synchronous send: returns once the receiver has matched the message. */
    void ssend(Object value, int dest, int tag);

    /** Blocking receive without a time limit (an abort of the domain still ends it). */
    Message recv(int source, int tag);

    /**
     * Blocking receive that fails with {@link ReceiveTimeoutException} when nothing matched within
     * {@code timeout}.
     */
    Message recv(int source, int tag, Duration timeout);

    /** Sends to {@code dest} and receives from {@code source} at once, without deadlocking on a ring. */
    Message sendrecv(Object value, int dest, int sendTag, int source, int recvTag);

    /** Non-blocking standard send. */
    Request isend(Object value, int dest, int tag);

    /** Non-blocking synchronous send. */
    Request issend(Object value, int dest, int tag);

    /** Non-blocking receive. */
    Request irecv(int source, int tag);

    // ---------------------------------------------------------------- collectives
    // Every rank of the communicator calls the same collectives in the same order. The algorithm
    // is "auto" (chosen by message and communicator size) or one the operation has in
    // org.mpfl.ir.semantics.CollectiveAlgorithms, the table the compiler checks documents against.

    /** Blocks until every rank of the communicator has entered the barrier. */
    void barrier();

    /** Returns the root's {@code value} on every rank (the value passed by non-roots is ignored). */
    Object bcast(Object value, int root, String algorithm);

    /** Block-distributes the root's array: the first {@code len % size} ranks get one extra element. */
    Object scatter(Object array, int root, String algorithm);

    /**
     * Collects every rank's value at the root, in rank order: scalars become an array, arrays are
     * concatenated, strings and objects become a {@code java.util.List}. Returns {@code null} on
     * other ranks.
     */
    Object gather(Object value, int root, String algorithm);

    /** Like {@link #gather}, with the result on every rank. */
    Object allgather(Object value, String algorithm);

    /** Element-wise reduction at the root; {@code null} on other ranks. */
    Object reduce(Object value, ReduceOp op, int root, String algorithm);

    /** Element-wise reduction, result on every rank. */
    Object allreduce(Object value, ReduceOp op, String algorithm);

    /** Block {@code j} of this rank's array goes to rank {@code j}; the result concatenates the received blocks. */
    Object alltoall(Object array, String algorithm);

    /** Inclusive prefix reduction over ranks {@code 0..rank()}. */
    Object scan(Object value, ReduceOp op, String algorithm);

    // ---------------------------------------------------------------- communicators

    /** MPI_Comm_split: ranks with the same colour form a new communicator, ordered by (key, old rank). */
    Communicator split(String name, int color, int key);

    /** A communicator with the same ranks whose messages never mix with this one's. */
    Communicator dup(String name);

    /** A Cartesian topology over this communicator's ranks (collective; size must equal the product of dims). */
    CartesianCommunicator cartesian(String name, int[] dims, boolean[] periodic);
}
