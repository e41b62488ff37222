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
import org.mpfl.protocol.RankEvent;
import org.mpfl.protocol.tls.TlsSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Posts one rank's {@link RankEvent}s as JSON to {@code callbackUrl + "/events"}, in order, best
 * effort: a background task drains the rank's queue one POST at a time (so order holds), each POST
 * bounded by a timeout; failures are logged once and the events are dropped (the engine also polls
 * {@code status}). The queue is bounded so that a dead engine cannot make a chatty rank grow memory.
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
final class EventPoster {
    private static final Logger LOG = LoggerFactory.getLogger(EventPoster.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MAX_QUEUED = 10_000;
    /** Routine events are collected for this long after a POST before the next one. */
    static final long MIN_POST_INTERVAL_MS = 250;
    private static final long MIN_POST_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(MIN_POST_INTERVAL_MS);
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
    private boolean warned;
    private long dropped;

    /** @param callbackUrl the engine's callback base address, or {@code null} (events are then discarded) */
    EventPoster(String callbackUrl, Executor executor, HttpClient http) {
        this.http = http;
        this.target = callbackUrl == null || callbackUrl.isBlank() ? null
                : URI.create(callbackUrl.endsWith("/") ? callbackUrl + "events" : callbackUrl + "/events");
        this.executor = executor;
    }

    void post(RankEvent event) {
        if (target == null) {
            return;
        }
        synchronized (queue) {
            if (queue.size() >= MAX_QUEUED) {
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

    /** Waits (bounded) until queued events are sent, so a final STATE reaches the engine before the host forgets the rank. */
    void flush(Duration max) {
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
                if (queue.isEmpty()) {
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
            send(withoutSupersededProgress(batch));
            lastPostNanos = System.nanoTime();
        }
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

    private void send(List<RankEvent> events) {
        try {
            // one event goes as an object, several as an array (the engine takes both)
            byte[] body = events.size() == 1 ? JSON.writeValueAsBytes(events.get(0)) : JSON.writeValueAsBytes(events);
            HttpRequest req = HttpRequest.newBuilder(target).timeout(POST_TIMEOUT)
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
            HttpResponse<Void> r = http.send(req, HttpResponse.BodyHandlers.discarding());
            if (r.statusCode() / 100 != 2) {
                warnOnce("engine answered HTTP " + r.statusCode() + " to " + events.size() + " event(s)");
            }
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        } catch (Exception ex) {
            warnOnce("cannot post events to " + target + ": " + ex);
        }
    }

    private void warnOnce(String message) {
        if (!warned) {
            warned = true;
            LOG.warn("{} (further event failures of this rank are not logged; {} dropped so far)", message, dropped);
        }
    }
}
