package org.mpfl.engine.run;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import org.apache.camel.CamelContext;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.builder.RouteBuilder;

/**
 * Calls an operation on many ranks at once through a Camel splitter with parallel processing and a
 * timeout: {@code run} on every rank of a new domain, {@code abort} on every rank of a failed one.
 * Each call records its own outcome, so one failing or hanging rank neither stops the others nor
 * blocks the caller beyond the timeout; whoever called {@link #callAll} decides what a failure means.
 */
public final class RankFanOut {
    static final String ENDPOINT = "direct:mpfl-rank-fan-out";

    private final ProducerTemplate producer;

    private RankFanOut(ProducerTemplate producer) {
        this.producer = producer;
    }

    /** One operation on one rank; {@link #failure()} is {@code null} after success. */
    public static final class RankCall {
        /** The operation itself; exceptions become the call's failure. */
        @FunctionalInterface
        public interface Action {
            void call() throws Exception;
        }

        private final int rank;
        private final Action action;
        private volatile boolean done;
        private volatile Throwable failure;

        public RankCall(int rank, Action action) {
            this.rank = rank;
            this.action = action;
        }

        void execute() {
            try {
                action.call();
            } catch (Throwable t) {
                failure = t;
            } finally {
                done = true;
            }
        }

        public int rank() {
            return rank;
        }

        /** Whether the call returned (or threw) before the fan-out's timeout. */
        public boolean done() {
            return done;
        }

        public Throwable failure() {
            return failure;
        }
    }

    /**
     * Adds the fan-out route to a Camel context.
     *
     * @param pool    threads for the parallel calls (bounded; shared by all runs)
     * @param timeout how long the splitter waits for all calls of one fan-out
     */
    public static RankFanOut install(CamelContext camel, ExecutorService pool, Duration timeout) throws Exception {
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from(ENDPOINT).routeId("rank-fan-out")
                        .split(body()).parallelProcessing().executorService(pool).timeout(timeout.toMillis())
                        .process(ex -> ex.getIn().getBody(RankCall.class).execute())
                        .end();
            }
        });
        return new RankFanOut(camel.createProducerTemplate());
    }

    /**
     * Runs every call in parallel and returns when all are done or the timeout passed; calls still
     * going then have {@code done() == false}.
     */
    public List<RankCall> callAll(List<RankCall> calls) {
        if (!calls.isEmpty()) {
            producer.requestBody(ENDPOINT, calls);
        }
        return calls;
    }
}
