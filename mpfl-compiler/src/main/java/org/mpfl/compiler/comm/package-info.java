/**
 * The communication check of spec section 5: a symbolic execution of every rank's program for given
 * param values ({@link org.mpfl.compiler.comm.CommunicationCheck}), with concrete values where they
 * are known and {@link org.mpfl.compiler.comm.Unknown} where they depend on run-time data, a
 * cooperative {@link org.mpfl.compiler.comm.Scheduler} over the ranks, MPI matching of messages
 * ({@link org.mpfl.compiler.comm.MessageMatcher}) and collectives
 * ({@link org.mpfl.compiler.comm.CollectiveRendezvous}), and a wait-for graph
 * ({@link org.mpfl.compiler.comm.WaitForGraph}) that explains where ranks end up blocked.
 */
package org.mpfl.compiler.comm;
