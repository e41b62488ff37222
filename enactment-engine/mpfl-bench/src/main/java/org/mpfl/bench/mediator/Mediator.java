package org.mpfl.bench.mediator;

import java.io.IOException;
import java.time.Duration;
import java.util.function.Function;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntConsumer;
import org.mpfl.bench.mediator.StepClient;
import org.mpfl.bench.mediator.StepWire;
import org.mpfl.engine.registry.HostRegistry;
import org.mpfl.engine.run.Placement;
import org.mpfl.engine.run.RankPlacement;
import org.mpfl.protocol.RunRequest.ProcessSlice;

/**
 * Enacts a {@link MediatedWorkflow} BPEL-style: per round, one request-response {@code step} call to
 * every rank's service in parallel (SOAP 1.2/MTOM through the rank's service host), all outputs back
 * to the engine, and the engine's relay into the next round's inputs. Every call and every round is
 * bounded by the call timeout; the first failing rank ends the enactment with its round and rank.
 */
public final class Mediator implements AutoCloseable {
    private final StepClient client;
    private final Duration callTimeout;
    private final ExecutorService calls;

    /**
     * @param authorizations the {@code Authorization} header for a step-service URL: the engine's key
     *                       for that URL's host ({@link #hostAuthorizations}), which the step service requires
     */
    public Mediator(Duration callTimeout, Function<String, String> authorizations) {
        this.callTimeout = callTimeout;
        this.client = new StepClient(callTimeout, authorizations);
        this.calls = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "mpfl-mediator-call");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * The header for each step-service URL: the key of the registered host whose step service it is
     * ({@code keys}: host id to header, e.g. the engine's {@code credentials()::engineAuthorization}),
     * {@code null} for a URL of no registered host.
     */
    public static Function<String, String> hostAuthorizations(HostRegistry registry, Function<String, String> keys) {
        return url -> registry.hosts().stream().filter(h -> h.serviceUrl(StepWire.SERVICE).equals(url)).findFirst()
                .map(h -> keys.apply(h.hostId())).orElse(null);
    }

    /**
     * Where the ranks' services are called: the engine's own {@link Placement} of one process of
     * {@code size} ranks over the registered hosts (consecutive ranks share a host up to its capacity),
     * i.e. the same rank-to-host mapping a run of an MPFL document gets; each rank's address is the
     * step service of its host.
     */
    public static List<String> placeRanks(HostRegistry registry, int size) throws IOException {
        List<RankPlacement> placed;
        try {
            placed = Placement.place(List.of(new ProcessSlice("mediated", StepWire.SERVICE, size)), registry.hosts(),
                    (host, service) -> true); // every service host publishes the step service
        } catch (Placement.PlacementException e) {
            throw new IOException("mediator: " + e.getMessage(), e);
        }
        List<String> urls = new ArrayList<>();
        for (RankPlacement r : placed) {
            urls.add(r.endpoint().soapUrl());
        }
        return urls;
    }

    /**
     * Runs every round of the workflow.
     *
     * @param rankServices the step-service URL of each rank ({@link #placeRanks})
     * @param afterRound   told the number of each finished round (progress)
     * @return the wall time of the enactment in nanoseconds
     */
    public long run(MediatedWorkflow workflow, List<String> rankServices, IntConsumer afterRound)
            throws IOException, InterruptedException {
        int p = workflow.size();
        if (rankServices.size() != p) {
            throw new IllegalArgumentException(p + " ranks but " + rankServices.size() + " service addresses");
        }
        long start = System.nanoTime();
        for (int round = 0; round < workflow.rounds(); round++) {
            String activity = workflow.activity(round);
            List<Future<Map<String, Object>>> answers = new ArrayList<>(p);
            // a value sent to several ranks of the round (e.g. everybody's blocks) is encoded once
            Map<Object, byte[]> encoded = new IdentityHashMap<>();
            for (int rank = 0; rank < p; rank++) {
                StepWire.StepRequest req = new StepWire.StepRequest(activity, rank, p, round, workflow.inputs(round, rank));
                StepWire.Body body = StepWire.request(req, encoded);
                String url = rankServices.get(rank);
                answers.add(calls.submit(() -> client.step(url, req, body)));
            }
            long deadline = System.nanoTime() + callTimeout.toNanos();
            try {
                for (int rank = 0; rank < p; rank++) {
                    Map<String, Object> out;
                    try {
                        out = answers.get(rank).get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                    } catch (ExecutionException e) {
                        Throwable c = e.getCause();
                        throw new IOException("round " + round + ", rank " + rank + ": " + (c.getMessage() == null ? c : c.getMessage()), c);
                    } catch (TimeoutException e) {
                        throw new IOException("round " + round + ", rank " + rank + ": no answer within " + callTimeout.toSeconds() + " s");
                    }
                    workflow.accept(round, rank, out);
                }
            } finally {
                answers.forEach(f -> f.cancel(true));
            }
            workflow.endRound(round);
            if (afterRound != null) {
                afterRound.accept(round);
            }
        }
        return System.nanoTime() - start;
    }

    @Override
    public void close() {
        calls.shutdownNow();
    }
}
