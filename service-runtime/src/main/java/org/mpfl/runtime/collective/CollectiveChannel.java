package org.mpfl.runtime.collective;

import org.mpfl.runtime.api.Message;
import org.mpfl.runtime.api.Request;

/**
 * The point-to-point service the collective algorithms run on: one per communicator, on a
 * <b>private context</b> of that communicator that user messages never see (so a user receive with
 * {@code ANY_TAG} can never steal a collective's message, and two communicators never mix).
 *
 * <p>Implemented by the point-to-point runtime; ranks are ranks of the communicator. Semantics are
 * the communicator's: per (sender, receiver) messages are non-overtaking; receives match on
 * (source, tag or {@link org.mpfl.runtime.api.Communicator#ANY_TAG}) in the order they were posted;
 * every blocking call ends with {@link org.mpfl.runtime.api.DomainAbortedException} when the domain
 * is aborted. Tags used by the algorithms are non-negative (see {@link Tags}).
 *
 * <p><b>Buffers.</b> A value passed to {@code send}/{@code isend} must not be modified by the caller
 * until the send has completed (MPI's rule; the algorithms respect it). Received values are owned
 * by the receiver: the algorithms reduce into them or keep them in place.
 */
public interface CollectiveChannel {
    /** This rank in the communicator. */
    int rank();

    /** Size of the communicator. */
    int size();

    /** Standard send: returns once the transport has taken the value. */
    void send(Object value, int dest, int tag);

    /** Non-blocking send. */
    Request isend(Object value, int dest, int tag);

    /**
     * Non-blocking send of a buffer the algorithm hands over: a fresh primitive array (or list) that
     * it sends to this one rank and never reads or writes again, so an in-JVM receiver may keep it
     * without a copy. The default is {@link #isend}.
     */
    default Request isendHandedOver(Object value, int dest, int tag) {
        return isend(value, dest, tag);
    }

    /** Blocking receive; {@code tag} may be {@code ANY_TAG} (never {@code ANY_SOURCE} in these algorithms). */
    Message recv(int source, int tag);

    /** Non-blocking receive; matched in posting order against receives of the same source and tag. */
    Request irecv(int source, int tag);

    /**
     * Sends {@code length} elements of a primitive array (or {@link java.util.List}) starting at
     * {@code offset}. The receiver sees an array of exactly that length. The default copies the
     * range; a runtime that encodes straight from the source array can override it to save a copy.
     */
    default Request isendRange(Object array, int offset, int length, int dest, int tag) {
        return isendHandedOver(Seqs.slice(array, offset, offset + length), dest, tag); // a fresh copy, sent once
    }

    /**
     * Where the ranks live, for the hierarchical algorithms: entry {@code r} is a small number naming
     * the service host of rank {@code r} (equal numbers: same host, so messages between them are an
     * in-JVM hand-over), the same array on every rank; {@code null} when unknown.
     */
    default int[] hosts() {
        return null;
    }

    /**
     * Which site each rank's host is in, for the site-aware hierarchical algorithms: entry {@code r} is
     * the number of rank {@code r}'s site, sites numbered in the order of their lowest rank (so site 0
     * holds rank 0), the same array on every rank; {@code null} when unknown (taken as one site).
     * Messages between sites are the costly ones (a WAN link, a NAT gateway, a relay).
     */
    default int[] sites() {
        return null;
    }

    /**
     * Whether {@link #bstoreBroadcast} is carried natively: the transport forwards the message down
     * the binomial tree ({@link BinomialTree}) as it arrives (the MPIWS {@code bstore} operation),
     * without waiting for the receiving rank's thread.
     */
    default boolean supportsBstore() {
        return false;
    }

    /**
     * The bstore broadcast: called by every rank; the root's value is delivered to all. The root
     * sends to its binomial children with {@code bstore}; every receiving side stores the payload and
     * forwards it to its own children ({@link BinomialTree#children}) on arrival, keeping the root
     * as the origin and the root's per-destination sequence numbers. Non-roots return the received
     * value; the root returns its own value. Only called when {@link #supportsBstore()} is true.
     */
    default Object bstoreBroadcast(Object value, int root, int tag) {
        throw new UnsupportedOperationException("this channel has no native bstore");
    }
}
