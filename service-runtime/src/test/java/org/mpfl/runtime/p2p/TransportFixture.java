package org.mpfl.runtime.p2p;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.mpfl.protocol.Endpoint;
import org.mpfl.runtime.transport.Envelope;
import org.mpfl.runtime.transport.ReceiverBusyException;
import org.mpfl.runtime.transport.Transport;
import org.mpfl.runtime.transport.TransportException;

/**
 * One way of placing the ranks of a test domain and carrying their messages: all in one host over
 * the local transport, in two in-JVM hosts over the binary channel, in two processes over the binary
 * channel, (R2) in two service-host processes over SOAP. The messaging suite runs every scenario of
 * {@link P2PScenarios} over every fixture of {@link TransportFixtures#all()}.
 *
 * <p>Scenarios are named, not lambdas, so a fixture can run ranks in another process: that process
 * looks the scenario up by name in {@link P2PScenarios}.
 */
public interface TransportFixture {
    String name();

    /** Starts one domain of {@code size} ranks running scenario {@code scenario} with string params. */
    Started start(String scenario, int size, Map<String, String> params);

    /** A running domain. */
    interface Started {
        String domainId();

        /** Aborts the domain in every host over the wire, with a valid proof (as the engine does). */
        void abort();

        /** Waits (bounded) for every rank; fails the test if one does not end within {@code timeout}. */
        List<Result> await(Duration timeout);

        /**
         * Stores a hand-made message over the wire, as someone holding the domain token (a compromised
         * peer) can: from world rank {@code from} to {@code to}, with a valid proof for its header, and
         * {@code payload} exactly as given (not checked against any allow-list).
         */
        default void inject(int from, int to, int tag, long seq, org.mpfl.runtime.transport.Payload payload) {
            throw new UnsupportedOperationException(getClass().getName() + " cannot inject messages");
        }
    }

    /**
     * Stores {@code envelope} at {@code to} as a sender does: a BUSY answer is retried until the store is taken, for
     * at most {@link #INJECT_WAIT}. {@link #start} returns before every rank is open, and a host answers BUSY for a
     * rank its {@code run} has not opened yet (as for a full buffer): a single try lost that race now and then.
     */
    static void storeAsASender(Transport wire, Endpoint to, Envelope envelope) {
        long deadline = System.nanoTime() + INJECT_WAIT.toNanos();
        while (true) {
            try {
                wire.store(to, envelope);
                return;
            } catch (ReceiverBusyException busy) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("injected store was still answered BUSY after " + INJECT_WAIT + ": "
                            + busy.getMessage(), busy);
                }
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while injecting", e);
                }
            } catch (TransportException ex) {
                throw new IllegalStateException("injected store was not taken: " + ex.getMessage(), ex);
            }
        }
    }

    /** How long {@link #storeAsASender} retries BUSY: a rank's opening takes milliseconds, seconds on a loaded machine. */
    Duration INJECT_WAIT = Duration.ofSeconds(30);

    /**
     * The end of one rank.
     *
     * @param outputs what the scenario recorded with {@code RankContext.output}, as strings
     * @param failure {@code null} if the rank succeeded, else the exception's class and message
     */
    record Result(int rank, Map<String, String> outputs, String failure) {
    }

    /**
     * Stops the fixture's hosts and processes. Deliberately not {@code AutoCloseable}: JUnit closes
     * AutoCloseable arguments after each parameterised invocation, and fixtures live per class.
     */
    void close();
}
