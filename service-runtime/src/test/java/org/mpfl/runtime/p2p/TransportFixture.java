package org.mpfl.runtime.p2p;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.Endpoint;
import org.mpfl.runtime.transport.Envelope;
import org.mpfl.runtime.transport.Payload;
import org.mpfl.runtime.transport.ReceiverBusyException;
import org.mpfl.runtime.transport.Transport;
import org.mpfl.runtime.transport.TransportException;
import org.mpfl.testing.Await;

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
     * Stores a DATA message from world rank {@code from} to {@code to} at {@code at}, proven with the domain's
     * {@code token}, as a sender does: a BUSY answer is retried until the store is taken, for at most
     * {@link #INJECT_WAIT}. {@link #start} returns before every rank is open, and a host answers BUSY for a rank
     * its {@code run} has not opened yet (as for a full buffer): a single try lost that race now and then.
     */
    static void injectAsASender(Transport wire, Endpoint at, String domainId, String token, int from, int to, int tag, long seq,
                                Payload payload) {
        byte[] proof = new DomainToken(token).prove(domainId, 0, from, to, tag, seq, Envelope.Kind.DATA.ordinal());
        Envelope e = new Envelope(domainId, 0, from, to, tag, seq, Envelope.Kind.DATA, proof, payload);
        try {
            Await.until(INJECT_WAIT, "the injected store taken (answered BUSY until then)", () -> {
                try {
                    wire.store(at, e);
                    return true;
                } catch (ReceiverBusyException busy) {
                    return false;
                }
            });
        } catch (TransportException ex) {
            throw new IllegalStateException("injected store was not taken: " + ex.getMessage(), ex);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while injecting", ex);
        } catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
    }

    /** How long {@link #injectAsASender} retries BUSY: a rank's opening takes milliseconds, seconds on a loaded machine. */
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
