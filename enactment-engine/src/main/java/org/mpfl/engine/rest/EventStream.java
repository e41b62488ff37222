package org.mpfl.engine.rest;

import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.mpfl.engine.Json;
import org.mpfl.engine.run.RunService;
import org.mpfl.engine.store.RunStore;

/**
 * {@code GET /api/runs/{id}/events}: a live server-sent event stream of one run.
 *
 * <p>Served straight on the Vert.x router that Camel's platform-http uses (same port as the REST
 * API) rather than as a Camel route: a Camel exchange answers once with a complete body, while an
 * SSE response stays open and is written to whenever the run changes; Vert.x gives that directly.
 *
 * <p>The stream starts with {@code event: snapshot} (the run's detail, as {@code GET /api/runs/{id}}),
 * then replays stored events after {@code Last-Event-ID} or {@code ?after=N} when given (use
 * {@code ?after=0} for the whole history, e.g. to draw a timeline), then sends events live:
 * {@code event: rank} (a {@code RankEvent}) and {@code event: run} (the run summary after a state
 * change), each with {@code id:} the stored event id. A comment line every 15 s keeps proxies from
 * closing an idle stream.
 */
public final class EventStream {
    private static final int REPLAY_LIMIT = 50_000;

    private EventStream() {
    }

    /** Adds the stream route to the router. */
    public static void install(Router router, RunService runs, RunStore store) {
        router.get("/api/runs/:id/events").handler(ctx -> serve(ctx, runs, store));
    }

    private static void serve(RoutingContext ctx, RunService runs, RunStore store) {
        String id = ctx.pathParam("id");
        HttpServerResponse resp = ctx.response();
        Optional<com.fasterxml.jackson.databind.JsonNode> detail = runs.detail(id);
        if (detail.isEmpty()) {
            resp.setStatusCode(404).putHeader("Content-Type", "application/json")
                    .end(Json.write(Map.of("error", "no run '" + id + "'")));
            return;
        }
        resp.setChunked(true);
        resp.putHeader("Content-Type", "text/event-stream; charset=utf-8");
        resp.putHeader("Cache-Control", "no-cache");
        resp.putHeader("X-Accel-Buffering", "no");
        Object lock = new Object();
        long[] lastSent = {0};
        boolean[] closed = {false};
        String lastId = ctx.request().getHeader("Last-Event-ID");
        String after = ctx.request().getParam("after");
        Long replayFrom = lastId != null ? parse(lastId) : after != null ? parse(after) : null;

        AutoCloseable subscription = runs.listen(id, (eventId, kind, body) -> {
            synchronized (lock) {
                if (closed[0] || (eventId > 0 && eventId <= lastSent[0])) {
                    return;
                }
                lastSent[0] = Math.max(lastSent[0], eventId);
                write(resp, eventId, kind, body);
            }
        });
        long timer = ctx.vertx().setPeriodic(15_000, t -> {
            synchronized (lock) {
                if (!closed[0]) {
                    resp.write(": keep-alive\n\n");
                }
            }
        });
        resp.closeHandler(v -> {
            synchronized (lock) {
                closed[0] = true;
            }
            ctx.vertx().cancelTimer(timer);
            try {
                subscription.close();
            } catch (Exception ignored) {
                // unsubscribing cannot fail in a way the client could notice
            }
        });
        synchronized (lock) {
            write(resp, 0, "snapshot", detail.get());
            if (replayFrom != null) {
                // held under the lock so that live events wait until the history is out, in order
                List<RunStore.StoredEvent> history = store.events(id, replayFrom, REPLAY_LIMIT);
                for (RunStore.StoredEvent e : history) {
                    write(resp, e.id(), e.type(), e.body());
                    lastSent[0] = Math.max(lastSent[0], e.id());
                }
            }
        }
    }

    private static Long parse(String s) {
        try {
            return Long.parseLong(s.strip());
        } catch (NumberFormatException e) {
            return 0L;
        }
    }

    private static void write(HttpServerResponse resp, long eventId, String kind, Object body) {
        StringBuilder sb = new StringBuilder();
        if (eventId > 0) {
            sb.append("id: ").append(eventId).append('\n');
        }
        sb.append("event: ").append(kind).append('\n');
        sb.append("data: ").append(Json.write(body)).append("\n\n");
        if (!resp.closed() && !resp.ended()) {
            resp.write(sb.toString());
        }
    }
}
