package org.mpfl.engine.run;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.mpfl.engine.json.Json;
import org.mpfl.protocol.FaultKind;
import org.mpfl.protocol.RankEvent;
import org.mpfl.protocol.RankEventPost;
import org.mpfl.protocol.RunRequest;

/**
 * An in-process stand-in for service hosts: {@code run} starts a thread per rank that plays a
 * scripted behaviour and posts {@link RankEvent}s to the engine's callback URL over HTTP, exactly
 * as a real rank would. Threads end on abort or after a bound, so no test leaves them running.
 */
public final class FakeRanks implements RankInvoker {
    /** What a fake rank does. */
    public interface Behaviour {
        void play(Rank rank) throws Exception;
    }

    private final Behaviour behaviour;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    final Set<String> aborted = ConcurrentHashMap.newKeySet();
    final java.util.concurrent.atomic.AtomicInteger abortCalls = new java.util.concurrent.atomic.AtomicInteger();
    private final Map<String, CountDownLatch> abortLatches = new ConcurrentHashMap<>();
    volatile int refuseRank = -1;
    /** A host whose every {@code run} is refused ({@code null}: none). */
    volatile String refuseHost;
    /** Every accepted {@code run}: host, domain and rank, in order of acceptance. */
    /** Run calls entered (counted before {@link #acceptDelayMs}); {@link #started} lists those accepted. */
    final java.util.concurrent.atomic.AtomicInteger runCalls = new java.util.concurrent.atomic.AtomicInteger();
    final java.util.List<Started> started = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** Run calls given up while they waited {@link #acceptDelayMs} (the engine interrupted them). */
    final java.util.concurrent.atomic.AtomicInteger runCallsInterrupted = new java.util.concurrent.atomic.AtomicInteger();

    /** One accepted {@code run}. */
    record Started(String hostId, String domainId, int rank) {
    }
    volatile long acceptDelayMs;
    /** A host whose run calls take {@link #slowAcceptMs} (as a host busy with strangers' connections). */
    volatile String slowHost;
    volatile long slowAcceptMs;
    /** The hosts that answer the engine's health probe. */
    volatile java.util.Set<String> healthyHosts = java.util.Set.of();
    /** How long {@code run} takes to return after the rank's thread started (ranks may end before their call returns). */
    volatile long returnDelayMs;
    /** A host that no abort reaches (its process is gone: the connection is refused), or {@code null}. */
    volatile String unreachableHost;
    /** More hosts no abort reaches for now (behind a lost relay: the engine's dial through it is refused). */
    volatile Set<String> unreachableHosts = Set.of();
    /** Every abort that reached a host: {@code HOST DOMAIN}. */
    final Set<String> abortsReached = ConcurrentHashMap.newKeySet();
    /** How long {@code abort} takes to return (counted and recorded before): a host slow to answer it. */
    volatile long abortDelayMs;
    /** Abort calls given up while they waited {@link #abortDelayMs} (the engine interrupted them). */
    final java.util.concurrent.atomic.AtomicInteger abortCallsInterrupted = new java.util.concurrent.atomic.AtomicInteger();
    /** Every abort that arrived: host and domain (rank: the first rank of that service URL in the domain), in order. */
    final java.util.List<Started> abortedAt = new java.util.concurrent.CopyOnWriteArrayList<>();
    /**
     * Called as a {@code run} call enters, before anything else ({@code null}: nothing): may block (a host
     * whose answer the test holds back) or throw (the host refuses).
     */
    volatile RunHook onRun;

    /** What a test does as a {@code run} call enters a fake host. */
    interface RunHook {
        void entered(RankPlacement target, RunRequest request) throws Exception;
    }

    public FakeRanks(Behaviour behaviour) {
        this.behaviour = behaviour;
    }

    /** How many abort calls arrived. */
    public int abortCalls() {
        return abortCalls.get();
    }

    /** One running fake rank. */
    public final class Rank {
        final RunRequest request;
        final AtomicLong seq = new AtomicLong();
        /** Every event this rank posted, in order (to send again, as a host does after a POST timed out). */
        final java.util.List<RankEvent> sent = new java.util.concurrent.CopyOnWriteArrayList<>();
        private volatile String lastMark;

        Rank(RunRequest request) {
            this.request = request;
        }

        public int rank() {
            return request.rank();
        }

        /** The {@code run} request this rank received (domain, token, callback, resume). */
        public RunRequest request() {
            return request;
        }

        public int size() {
            return request.size();
        }

        /** Posts the event as a rank does; returns the engine's HTTP status. */
        public int event(RankEvent.Type type, String state, String activity, String location, String message, String name, Object value)
                throws Exception {
            return event(type, state, activity, location, message, name, value, null);
        }

        private int event(RankEvent.Type type, String state, String activity, String location, String message, String name,
                          Object value, FaultKind fault) throws Exception {
            RankEvent e = new RankEvent(request.domainId(), request.rank(), seq.getAndIncrement(), System.currentTimeMillis(),
                    type, state, activity, location, message, type == RankEvent.Type.LOG ? "info" : null, name, value, fault);
            sent.add(e);
            return post(e);
        }

        /**
         * Posts an event as it is (one posted before: a host sending it again), with the headers a host
         * sends ({@link RankEventPost}); returns the engine's HTTP status.
         */
        public int post(RankEvent e) throws Exception {
            byte[] body = Json.write(e).getBytes(java.nio.charset.StandardCharsets.UTF_8);
            HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(request.callbackUrl() + "/" + RankEventPost.PATH))
                    .timeout(Duration.ofSeconds(5)).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body));
            RankEventPost.headers(request.token(), request.domainId(), body).forEach(req::header);
            HttpResponse<Void> answer = http.send(req.build(), HttpResponse.BodyHandlers.discarding());
            lastMark = answer.headers().firstValue(org.mpfl.protocol.EngineRefusal.HEADER).orElse(null);
            return answer.statusCode();
        }

        /**
         * The {@link org.mpfl.protocol.EngineRefusal} mark of the engine's answer to this rank's last post
         * ({@code null}: none), on which a host stops the domain's ranks.
         */
        public String lastMark() {
            return lastMark;
        }

        public int state(String s) throws Exception {
            return event(RankEvent.Type.STATE, s, null, null, null, null, null);
        }

        /** Fails as the workflow's fault (as a host says it: {@link FaultKind#WORKFLOW}). */
        public void fail(String activity, String location, String message) throws Exception {
            event(RankEvent.Type.STATE, "FAILED", activity, location, message, null, null, FaultKind.WORKFLOW);
        }

        /** Fails with an infrastructure fault (a peer unreachable, a kernel worker lost), as a host says it. */
        public void failInInfrastructure(String activity, String location, String message) throws Exception {
            event(RankEvent.Type.STATE, "FAILED", activity, location, message, null, null, FaultKind.INFRASTRUCTURE);
        }

        public void output(String name, Object value) throws Exception {
            event(RankEvent.Type.OUTPUT, null, null, null, null, name, value);
        }

        public void waitFor(String activity, String location, String what) throws Exception {
            event(RankEvent.Type.WAIT, null, activity, location, what, null, null);
        }

        /** Blocks until the domain is aborted or {@code ms} pass; true if aborted. */
        public boolean awaitAbort(long ms) throws InterruptedException {
            return abortLatches.computeIfAbsent(request.domainId(), k -> new CountDownLatch(1)).await(ms, TimeUnit.MILLISECONDS);
        }
    }

    @Override
    public void run(RankPlacement target, RunRequest request) throws Exception {
        runCalls.incrementAndGet();
        RunHook hook = onRun;
        if (hook != null) {
            hook.entered(target, request);
        }
        delay(acceptDelayMs, runCallsInterrupted);
        if (target.hostId().equals(slowHost)) {
            Thread.sleep(slowAcceptMs);
        }
        if (request.rank() == refuseRank || target.hostId().equals(refuseHost)) {
            throw new IllegalStateException("service '" + target.service() + "' is not deployed here");
        }
        started.add(new Started(target.hostId(), request.domainId(), request.rank()));
        abortLatches.computeIfAbsent(request.domainId(), k -> new CountDownLatch(1));
        Thread t = new Thread(() -> {
            Rank r = new Rank(request);
            try {
                r.state("RUNNING");
                behaviour.play(r);
            } catch (Exception e) {
                try {
                    r.fail(null, null, String.valueOf(e.getMessage()));
                } catch (Exception ignored) {
                    // the engine may be gone already at the end of a test
                }
            }
        }, "fake-rank-" + request.rank());
        t.setDaemon(true);
        t.start();
        if (returnDelayMs > 0) {
            Thread.sleep(returnDelayMs);
        }
    }

    @Override
    public boolean answersHealthProbe(RankPlacement target, String domainId) {
        return healthyHosts.contains(target.hostId());
    }

    @Override
    public RankStatus status(RankPlacement target, String domainId, String token) {
        throw new UnsupportedOperationException("fake ranks report by events only");
    }

    @Override
    public void abort(RankPlacement target, String domainId, String token) throws InterruptedException, java.io.IOException {
        if (target.hostId().equals(unreachableHost) || unreachableHosts.contains(target.hostId())) {
            throw new java.net.ConnectException("Connection refused: " + target.endpoint().soapUrl());
        }
        abortsReached.add(target.hostId() + " " + domainId);
        aborted.add(domainId);
        abortedAt.add(new Started(target.hostId(), domainId, target.rank()));
        abortCalls.incrementAndGet();
        delay(abortDelayMs, abortCallsInterrupted);
        abortLatches.computeIfAbsent(domainId, k -> new CountDownLatch(1)).countDown();
    }

    /** A host slow to answer: sleeps {@code ms} (if any), counting in {@code interrupted} a call the engine gave up. */
    private static void delay(long ms, java.util.concurrent.atomic.AtomicInteger interrupted) throws InterruptedException {
        if (ms <= 0) {
            return;
        }
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            interrupted.incrementAndGet();
            throw e;
        }
    }
}
