package org.mpfl.engine.run;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
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
    private final ExecutorService pool;
    /** The threads making a call now: {@link #stop} interrupts them. */
    private final Set<Thread> calling = ConcurrentHashMap.newKeySet();
    private volatile boolean stopped;

    private RankFanOut(ProducerTemplate producer, ExecutorService pool) {
        this.producer = producer;
        this.pool = pool;
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

        /** Ends the call without making it: the engine is stopping. */
        void skip() {
            failure = new CancellationException("the engine is stopping");
            done = true;
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
        RankFanOut fanOut = new RankFanOut(camel.createProducerTemplate(), pool);
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from(ENDPOINT).routeId("rank-fan-out")
                        .split(body()).parallelProcessing().executorService(pool).timeout(timeout.toMillis())
                        .process(ex -> fanOut.execute(ex.getIn().getBody(RankCall.class)))
                        .end();
            }
        });
        return fanOut;
    }

    private void execute(RankCall call) {
        if (stopped) {
            call.skip();
            return;
        }
        Thread self = Thread.currentThread();
        calling.add(self);
        try {
            if (stopped) { // stop() may have interrupted the callers just before this one joined them
                call.skip();
            } else {
                call.execute();
            }
        } finally {
            calling.remove(self);
            Thread.interrupted(); // a stop's interrupt was for this call, not for the pool's thread
        }
    }

    /**
     * Ends every fan-out at once (the engine stops): calls under way are interrupted, calls not begun end
     * without being made ({@link RankCall#failure()} a {@link CancellationException}); then waits, up to
     * {@code bound}, until the pool's threads are idle. Each fan-out then completes before Camel stops, so
     * Camel's stop finds no exchange in flight to wait for, and no call ends after Camel stopped (Camel would
     * refuse to finish its exchange and log that). The pool's threads stay until the caller shuts it down: a
     * pool shut down first would drop queued calls and leave their fan-out unfinished.
     */
    public void stop(Duration bound) {
        stopped = true;
        calling.forEach(Thread::interrupt);
        long deadline = System.nanoTime() + bound.toNanos();
        while (busy() && System.nanoTime() - deadline < 0) {
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private boolean busy() {
        return !calling.isEmpty() || pool instanceof ThreadPoolExecutor threads && threads.getActiveCount() > 0;
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
