package org.mpfl.runtime.host;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.EngineRefusal;
import org.mpfl.protocol.RankEvent;
import org.mpfl.protocol.RankEventPost;
import org.mpfl.protocol.tls.TlsSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Posts one rank's {@link RankEvent}s as JSON to {@code callbackUrl + "/events"}, each POST with the
 * headers of {@link RankEventPost} (the domain, the body's SHA-256 and the proof made with the domain's
 * token, without which the engine refuses the POST unread), in order: a
 * background task drains the rank's queue one POST at a time (so order holds), each POST bounded by a
 * timeout. Posting never blocks or fails the rank: {@link #post} only queues.
 *
 * <p><b>An unreachable engine</b> (no connection, a timeout, HTTP 5xx/408/429 — e.g. while it
 * restarts) does not lose events: the batch goes back to the head of the queue and is sent again
 * after a back-off ({@value #FIRST_BACKOFF_MS} ms doubling up to {@value #MAX_BACKOFF_MS} ms) until the engine
 * takes it, for at most {@value #RETRY_WINDOW_MS} ms of one outage (then the backlog is given up
 * with a warning; the engine still has {@code status}, which carries every output). An engine that
 * answers and refuses a batch with its mark {@link EngineRefusal#BATCH_REJECTED} (400, 401, 413: a malformed
 * post) will never take that batch: it is dropped, logged with the engine's message; when the refusal says the domain is over for the engine — 403 (a domain the run gave up or
 * never had), 404 (no such run), 410 (the run ended FAILED or CANCELLED), each with the engine's mark
 * {@link EngineRefusal#HEADER} — the poster's refusal listener hears it once, and the host aborts the
 * domain's ranks here: nobody observes them any more, and an abort the engine sent may never have reached
 * them (a lost relay, a cut network). Events of a domain the run has left (403, 410) are late by design — the
 * old domain's ranks post their last ones while they are aborted — and their drop is logged at INFO, not WARN. A 403, 404 or 410 <em>without</em> the mark is not the engine's word:
 * something between the host and the engine answered (a reverse proxy or load balancer while it reloads, a
 * wrong path prefix during an upgrade, a captive portal), so the batch is kept and tried again as for an
 * unreachable engine, with the same back-off and the same bound ({@value #RETRY_WINDOW_MS} ms, after which
 * the backlog is given up saying what answered last); the ranks run on. So is any other answer without the mark
 * (a proxy's 405 under a wrong path prefix, its 413 body limit, its 401 login, a 3xx): only the engine's mark drops
 * events before the window ends. Later events queue behind the kept batch, within the same bounds. The backlog is bounded: past {@value #MAX_QUEUED} queued events, routine ones
 * ({@code log}, {@code activity}, {@code wait}) are dropped and counted, {@code progress} and
 * {@code counters} are coalesced to the latest of each, and the ones that carry results —
 * {@code state} (DONE, FAILED, ABORTED) and {@code output} — are never dropped, up to a hard cap of
 * {@value #HARD_CAP} queued events (only outputs can reach it; beyond it an output is dropped and
 * counted: the rank's {@code status} still reports it).
 *
 * <p>Events are batched: one POST carries everything queued meanwhile (a JSON array, as the engine's
 * {@code /ranks/events} accepts), and routine events wait until {@value #MIN_POST_INTERVAL_MS} ms
 * after the previous POST, so a rank reporting {@code progress} or {@code log} every iteration of a
 * tight loop costs the engine and the host a few requests per second instead of one per iteration
 * (one POST per event kept the engine's REST thread, the host's HTTP client and the event store busy
 * on the same cores as the ranks' messaging; at 50 ms between POSTs the engine still took ~25 % of a
 * 2-core machine during bench mediator's tight loop, and the direct loop at p = 4 ran 1.5× faster with
 * 250 ms). A STATE or WAIT event, and {@link #flush}, end the wait at once. Within a batch, a PROGRESS event followed by a later one is superseded and not sent
 * (progress is a gauge; the newest value is what status reports too).
 */
final class EventPoster implements RankEvents {
    private static final Logger LOG = LoggerFactory.getLogger(EventPoster.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Past this many queued events, routine events are dropped and gauges coalesced. */
    static final int MAX_QUEUED = 10_000;
    /** No more than this many events are ever queued (outputs past it are dropped; status keeps them). */
    static final int HARD_CAP = 20_000;
    /** Routine events are collected for this long after a POST before the next one. */
    static final long MIN_POST_INTERVAL_MS = 250;
    private static final long MIN_POST_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(MIN_POST_INTERVAL_MS);
    /** First wait before a failed POST is tried again; doubles per failure. */
    static final long FIRST_BACKOFF_MS = 250;
    /** Longest wait between two tries. */
    static final long MAX_BACKOFF_MS = 5_000;
    /**
     * How long one outage of the engine is bridged before the backlog is given up: longer than an
     * engine restart and the hosts' engine-loss grace (after which the ranks are aborted anyway).
     */
    static final long RETRY_WINDOW_MS = 15 * 60_000L;
    /** At most this many events in one POST. */
    private static final int MAX_BATCH = 500;
    private static final Duration POST_TIMEOUT = Duration.ofSeconds(5);

    /** A client for the engine's callback address, verifying an {@code https} engine against the TLS settings' CA. */
    static HttpClient client(TlsSettings tls) {
        return tls.httpClient().version(HttpClient.Version.HTTP_1_1).connectTimeout(POST_TIMEOUT).build();
    }

    private final HttpClient http;

    private final URI target;
    private final Executor executor;
    private final ArrayDeque<RankEvent> queue = new ArrayDeque<>();
    private boolean draining;
    /** A queued event (STATE, WAIT) or a {@link #flush} wants the next POST now. Guarded by {@code queue}. */
    private boolean urgent;
    /** When the last POST ended (drain task only). */
    private long lastPostNanos = System.nanoTime() - MIN_POST_INTERVAL_NANOS;
    /** Whether the current outage was logged (drain task only). */
    private boolean warned;
    /** Events dropped or coalesced because the backlog was full, or refused by the engine. Guarded by {@code queue}. */
    private long dropped;
    /** When the current outage began (nanoTime), 0 while the engine takes events (drain task only). */
    private long outageSinceNanos;

    /** What the engine's address last answered in the current outage, for the warning when it is given up (drain task only). */
    private String lastFailure;

    /** Hears, once, the engine's answer (its HTTP status and message) when it refused events with a mark that ends the domain ({@link EngineRefusal#endsDomain}: 403, 404, 410). */
    private final java.util.function.BiConsumer<Integer, String> onDomainGone;
    private final java.util.concurrent.atomic.AtomicBoolean domainGoneTold = new java.util.concurrent.atomic.AtomicBoolean();

    /** The domain whose events these are, and its token, which proves them to the engine ({@link RankEventPost}). */
    private final String domainId;
    private final DomainToken token;

    /**
     * @param callbackUrl the engine's callback base address, or {@code null} (events are then discarded)
     * @param domainId    the domain of the rank (the run request's)
     * @param token       the domain's token (the run request's)
     */
    EventPoster(String callbackUrl, String domainId, String token, Executor executor, HttpClient http) {
        this(callbackUrl, domainId, token, executor, http, (code, message) -> { });
    }

    /**
     * @param callbackUrl  the engine's callback base address, or {@code null} (events are then discarded)
     * @param domainId     the domain of the rank (the run request's)
     * @param token        the domain's token (the run request's)
     * @param onDomainGone told once (on the drain thread, no lock held) when the engine refuses events with
     *                     403, 404 or 410 and its {@link EngineRefusal} mark: the HTTP status and the engine's message
     */
    EventPoster(String callbackUrl, String domainId, String token, Executor executor, HttpClient http,
                java.util.function.BiConsumer<Integer, String> onDomainGone) {
        this.onDomainGone = onDomainGone;
        this.http = http;
        this.target = callbackUrl == null || callbackUrl.isBlank() ? null
                : URI.create(callbackUrl.endsWith("/") ? callbackUrl + RankEventPost.PATH : callbackUrl + "/" + RankEventPost.PATH);
        this.domainId = domainId;
        this.token = target == null ? null : new DomainToken(token);
        this.executor = executor;
    }

    /** Queues an event (never blocks on the network). */
    @Override
    public void post(RankEvent event) {
        if (target == null) {
            return;
        }
        synchronized (queue) {
            if (queue.size() >= MAX_QUEUED && !admitOverflow(event)) {
                dropped++;
                return;
            }
            queue.add(event);
            if (event.type() == RankEvent.Type.STATE || event.type() == RankEvent.Type.WAIT) {
                urgent = true;
                queue.notifyAll();
            }
            if (draining) {
                return;
            }
            draining = true;
        }
        executor.execute(this::drain);
    }

    /**
     * Whether an event may still join a full queue (the engine has been unreachable for a while):
     * results always (up to the hard cap), gauges replacing their older value, routine events never.
     * Called under the queue's lock.
     */
    private boolean admitOverflow(RankEvent event) {
        switch (event.type()) {
            case STATE -> {
                return true; // a handful per rank: the run's outcome must arrive
            }
            case OUTPUT -> {
                return queue.size() < HARD_CAP || evictOldest(t -> t != RankEvent.Type.STATE && t != RankEvent.Type.OUTPUT);
            }
            case PROGRESS, COUNTERS -> {
                // a gauge: the newest value is all that matters
                evictOldest(t -> t == event.type());
                return true;
            }
            default -> {
                return false;
            }
        }
    }

    /** Removes the oldest queued event of a matching type; whether there was one. */
    private boolean evictOldest(java.util.function.Predicate<RankEvent.Type> type) {
        var it = queue.iterator();
        while (it.hasNext()) {
            if (type.test(it.next().type())) {
                it.remove();
                dropped++;
                return true;
            }
        }
        return false;
    }

    /** Events dropped so far (full backlog, refused by the engine, or given up after the retry window). */
    long dropped() {
        synchronized (queue) {
            return dropped;
        }
    }

    /** Events waiting to be delivered. */
    int queued() {
        synchronized (queue) {
            return queue.size();
        }
    }

    /** Waits (bounded) until queued events are sent, so a final STATE reaches the engine before the host forgets the rank. */
    @Override
    public void flush(Duration max) {
        long deadline = System.nanoTime() + max.toNanos();
        synchronized (queue) {
            urgent = true;
            queue.notifyAll();
            while ((draining || !queue.isEmpty()) && System.nanoTime() < deadline) {
                try {
                    queue.wait(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private void drain() {
        List<RankEvent> batch = new ArrayList<>();
        long backoffMs = FIRST_BACKOFF_MS;
        for (;;) {
            batch.clear();
            synchronized (queue) {
                // routine events wait a little so that they go together
                for (long left = lastPostNanos + MIN_POST_INTERVAL_NANOS - System.nanoTime();
                     left > 0 && !urgent && !queue.isEmpty();
                     left = lastPostNanos + MIN_POST_INTERVAL_NANOS - System.nanoTime()) {
                    try {
                        TimeUnit.NANOSECONDS.timedWait(queue, left);
                    } catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                        break;
                    }
                }
                if (queue.isEmpty() || Thread.currentThread().isInterrupted()) {
                    draining = false;
                    urgent = false;
                    queue.notifyAll();
                    return;
                }
                while (!queue.isEmpty() && batch.size() < MAX_BATCH) {
                    batch.add(queue.poll());
                }
                if (queue.isEmpty()) {
                    urgent = false;
                }
            }
            List<RankEvent> sending = withoutSupersededProgress(batch);
            if (sending.size() < batch.size()) {
                synchronized (queue) {
                    dropped += batch.size() - sending.size(); // coalesced progress counts as dropped
                }
            }
            Delivery d = send(sending);
            lastPostNanos = System.nanoTime();
            if (d == Delivery.RETRY) {
                if (!retryLater(sending, backoffMs)) {
                    synchronized (queue) {
                        draining = false;
                        queue.notifyAll();
                    }
                    return;
                }
                backoffMs = Math.min(MAX_BACKOFF_MS, backoffMs * 2);
            } else {
                backoffMs = FIRST_BACKOFF_MS;
                if (d == Delivery.REFUSED) {
                    synchronized (queue) {
                        dropped += sending.size();
                    }
                }
                if (outageSinceNanos != 0 && d == Delivery.OK) {
                    long ms = (System.nanoTime() - outageSinceNanos) / 1_000_000;
                    LOG.info("the engine takes events again after {} ms; {} event(s) of this rank dropped so far", ms, dropped());
                    outageSinceNanos = 0;
                    warned = false;
                }
            }
        }
    }

    /**
     * Puts an undelivered batch back at the head of the queue and waits the back-off; gives up the
     * whole backlog when the outage outlasted {@link #RETRY_WINDOW_MS}.
     *
     * @return whether to keep draining ({@code false}: interrupted, the host is stopping)
     */
    private boolean retryLater(List<RankEvent> batch, long backoffMs) {
        long now = System.nanoTime();
        if (outageSinceNanos == 0) {
            outageSinceNanos = now;
        }
        boolean giveUp = (now - outageSinceNanos) / 1_000_000 > RETRY_WINDOW_MS;
        synchronized (queue) {
            if (giveUp) {
                dropped += batch.size() + queue.size();
                LOG.warn("the engine at {} has taken no event for {} s (last: {}): giving up this rank's {} undelivered event(s)",
                        target, RETRY_WINDOW_MS / 1000, lastFailure, batch.size() + queue.size());
                queue.clear();
                outageSinceNanos = 0;
                warned = false;
                return true;
            }
            for (int i = batch.size() - 1; i >= 0; i--) {
                queue.addFirst(batch.get(i));
            }
            long deadline = now + TimeUnit.MILLISECONDS.toNanos(backoffMs);
            // the back-off holds even against flush(): hammering a down engine helps nobody
            for (long left = deadline - System.nanoTime(); left > 0; left = deadline - System.nanoTime()) {
                try {
                    TimeUnit.NANOSECONDS.timedWait(queue, left);
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
        }
        return true;
    }

    /** The batch without the PROGRESS events that a later PROGRESS event of it supersedes (order kept). */
    static List<RankEvent> withoutSupersededProgress(List<RankEvent> batch) {
        int last = -1;
        for (int i = batch.size() - 1; i >= 0; i--) {
            if (batch.get(i).type() == RankEvent.Type.PROGRESS) {
                last = i;
                break;
            }
        }
        List<RankEvent> out = new ArrayList<>(batch.size());
        for (int i = 0; i < batch.size(); i++) {
            RankEvent e = batch.get(i);
            if (e.type() != RankEvent.Type.PROGRESS || i == last) {
                out.add(e);
            }
        }
        return out;
    }

    /** How a POST went: taken, to be tried again (engine unreachable or overloaded), or refused for good. */
    enum Delivery { OK, RETRY, REFUSED }

    private Delivery send(List<RankEvent> events) {
        if (events.isEmpty()) {
            return Delivery.OK;
        }
        try {
            // one event goes as an object, several as an array (the engine takes both)
            byte[] body = events.size() == 1 ? JSON.writeValueAsBytes(events.get(0)) : JSON.writeValueAsBytes(events);
            HttpRequest.Builder req = HttpRequest.newBuilder(target).timeout(POST_TIMEOUT)
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body));
            RankEventPost.headers(token, domainId, body).forEach(req::header);
            HttpResponse<String> r = http.send(req.build(), HttpResponse.BodyHandlers.ofString());
            int code = r.statusCode();
            if (code / 100 == 2) {
                return Delivery.OK;
            }
            if (code / 100 == 5 || code == 408 || code == 429) {
                lastFailure = "HTTP " + code;
                warnOnce("engine answered HTTP " + code + " to " + events.size() + " event(s); trying again");
                return Delivery.RETRY;
            }
            java.util.Optional<EngineRefusal> mark = EngineRefusal.of(code, r.headers().firstValue(EngineRefusal.HEADER).orElse(null));
            // a mark counts only with the status it goes with (EngineRefusal.of), so these are the engine's 403, 404 and 410
            boolean domainGone = mark.filter(EngineRefusal::endsDomain).isPresent();
            if (!domainGone && mark.filter(EngineRefusal::rejectsBatch).isEmpty()) {
                // not the engine's refusal (it marks every one that ends a domain or drops a batch): a proxy, a balancer,
                // a wrong prefix (405), a body limit (413), a login (401) - nothing that says the engine will not take them
                lastFailure = "HTTP " + code + " without the engine's " + EngineRefusal.HEADER + " mark";
                warnOnce("HTTP " + code + " to " + events.size() + " event(s) at " + target + " without the engine's "
                        + EngineRefusal.HEADER + " mark: something between this host and the engine answered (a proxy or"
                        + " load balancer, a wrong path prefix?), not the engine; keeping them and trying again for up to "
                        + RETRY_WINDOW_MS / 1000 + " s");
                return Delivery.RETRY;
            }
            String answer = r.body() == null ? "" : r.body().strip();
            // the engine's error, bounded: a stranger at the callback address could answer anything
            answer = answer.length() > 300 ? answer.substring(0, 300) + "…" : answer;
            String refused = "engine refused " + events.size() + " event(s) with HTTP " + code + " (" + mark.get().value() + ")"
                    + (answer.isEmpty() ? "" : ": " + answer) + "; dropped";
            if (mark.get() == EngineRefusal.DOMAIN_FOREIGN || mark.get() == EngineRefusal.DOMAIN_ENDED) {
                // the run has left this domain (restarted on a new one, failed or cancelled): the events its ranks
                // still post while they are aborted come late by design, not a warning (mpflc run --local shows a
                // host's warnings in the user's terminal, beside its own "attempt 2" line)
                sayOnce(refused, false);
            } else {
                warnOnce(refused);
            }
            if (domainGone && domainGoneTold.compareAndSet(false, true)) {
                onDomainGone.accept(code, answer);
            }
            return Delivery.REFUSED;
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return Delivery.RETRY;
        } catch (java.io.IOException ex) {
            lastFailure = ex.toString();
            warnOnce("cannot post events to " + target + ": " + ex + "; keeping them and trying again");
            return Delivery.RETRY;
        } catch (RuntimeException ex) {
            // a bug or an unusable address: retrying would not help
            warnOnce("cannot post events to " + target + ": " + ex);
            return Delivery.REFUSED;
        }
    }

    private void warnOnce(String message) {
        sayOnce(message, true);
    }

    private void sayOnce(String message, boolean warning) {
        if (!warned) {
            warned = true;
            String format = "{} (further event failures of this rank are not logged; {} dropped so far)";
            if (warning) {
                LOG.warn(format, message, dropped());
            } else {
                LOG.info(format, message, dropped());
            }
        }
    }
}
