package org.mpfl.runtime.host;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import org.mpfl.runtime.monitor.RankEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Posts one rank's {@link RankEvent}s as JSON to {@code callbackUrl + "/events"}, in order, best
 * effort: a background task drains the rank's queue one POST at a time (so order holds), each POST
 * bounded by a timeout; failures are logged once and the event is dropped (the engine also polls
 * {@code status}). The queue is bounded so that a dead engine cannot make a chatty rank grow memory.
 */
final class EventPoster {
    private static final Logger LOG = LoggerFactory.getLogger(EventPoster.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MAX_QUEUED = 10_000;
    private static final Duration POST_TIMEOUT = Duration.ofSeconds(5);
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(POST_TIMEOUT).build();

    private final URI target;
    private final Executor executor;
    private final ArrayDeque<RankEvent> queue = new ArrayDeque<>();
    private boolean draining;
    private boolean warned;
    private long dropped;

    /** @param callbackUrl the engine's callback base address, or {@code null} (events are then discarded) */
    EventPoster(String callbackUrl, Executor executor) {
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
        for (;;) {
            RankEvent e;
            synchronized (queue) {
                e = queue.poll();
                if (e == null) {
                    draining = false;
                    queue.notifyAll();
                    return;
                }
            }
            send(e);
        }
    }

    private void send(RankEvent e) {
        try {
            byte[] body = JSON.writeValueAsBytes(e);
            HttpRequest req = HttpRequest.newBuilder(target).timeout(POST_TIMEOUT)
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
            HttpResponse<Void> r = HTTP.send(req, HttpResponse.BodyHandlers.discarding());
            if (r.statusCode() / 100 != 2) {
                warnOnce("engine answered HTTP " + r.statusCode() + " to an event");
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
