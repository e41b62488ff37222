package org.mpfl.engine.rest;

import com.fasterxml.jackson.databind.JsonNode;
import io.vertx.core.Context;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.mpfl.engine.access.AccessPolicy;
import org.mpfl.engine.access.Caller;
import org.mpfl.engine.json.Json;
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
 * {@code event: rank} (a rank event) and {@code event: run} (the run summary after a state change),
 * each with {@code id:} the stored event id. A comment line every 15 s keeps proxies from closing an
 * idle stream.
 *
 * <p>An ended run's stream ends: for a run already SUCCEEDED, FAILED or CANCELLED the snapshot (and
 * the replay asked for) is followed by {@code event: end} and the response is closed; a run that
 * ends while watched gets the same {@link #END_GRACE_MS} after its final {@code run} event, so the
 * last rank events (counters, logs) still arrive. A client that gets {@code end} must not reconnect
 * (browsers' {@code EventSource} would: the console closes it). Nothing stays open for an ended run,
 * so tools that wait for a page's network to go idle (headless screenshots) return.
 *
 * <p>Threading: the database is read on a worker thread; every write to the response happens on the
 * request's event-loop context, and live events are handed over to that context — so nothing blocks
 * the event loop and no lock is held while writing (a write from another thread can wait for the
 * event loop, which must therefore never wait for that thread).
 */
public final class EventStream {
    private static final int REPLAY_LIMIT = 50_000;
    /** How long a stream stays open after its run's final state event, for the ranks' last events. */
    static final long END_GRACE_MS = 2_000;
    private static final java.util.Set<String> FINAL_STATES = java.util.Set.of("SUCCEEDED", "FAILED", "CANCELLED");

    private EventStream() {
    }

    /** Adds the stream route to the router. */
    public static void install(Router router, RunService runs, RunStore store, AccessPolicy access) {
        router.get("/api/runs/:id/events").handler(ctx -> serve(ctx, runs, store, access));
    }

    /** Per-connection state, touched only on the connection's event-loop context. */
    private static final class Connection {
        long lastSent;
        boolean replaying = true;
        boolean closed;
        final List<Object[]> pending = new ArrayList<>();
    }

    private static void serve(RoutingContext ctx, RunService runs, RunStore store, AccessPolicy access) {
        if (!ctx.request().isEnded()) {
            // the access filter paused the request until it was admitted; a stream reads nothing more, but
            // must see the client go away at once (a paused connection would notice only at the next write)
            ctx.request().resume();
        }
        String id = ctx.pathParam("id");
        HttpServerResponse resp = ctx.response();
        Context context = ctx.vertx().getOrCreateContext();
        Connection conn = new Connection();
        String lastId = ctx.request().getHeader("Last-Event-ID");
        String after = ctx.request().getParam("after");
        Long replayFrom = lastId != null ? parse(lastId) : after != null ? parse(after) : null;

        // subscribe first so nothing between the snapshot and the live events is lost
        AutoCloseable subscription = runs.listen(id, (eventId, kind, body) -> {
            String frame = frame(eventId, kind, body);
            context.runOnContext(v -> {
                if (conn.closed) {
                    return;
                }
                if (conn.replaying) {
                    conn.pending.add(new Object[] {eventId, frame});
                } else {
                    send(resp, conn, eventId, frame);
                }
                if ("run".equals(kind) && isFinal(Json.MAPPER.valueToTree(body))) {
                    ctx.vertx().setTimer(END_GRACE_MS, t -> end(resp, conn));
                }
            });
        });
        // admitted with a user's token, the stream lasts as long as the token: one that expired (or was revoked at the
        // issuer) must not keep a user reading; the console's EventSource reconnects with its session's fresh token
        long expiresAtMs = ctx.user() == null ? 0 : Caller.fromPrincipal(ctx.user().principal()).expiresAtMs();
        long expiry = expiresAtMs <= 0 ? -1 : ctx.vertx().setTimer(Math.max(1, expiresAtMs - System.currentTimeMillis()), t -> {
            if (!conn.closed && !resp.closed() && !resp.ended()) {
                conn.closed = true;
                unsubscribe(subscription);
                // not "end": the run goes on; a client that wants more reconnects with a token that is still valid
                resp.end("event: expired\ndata: {\"error\":\"the token this stream was opened with has expired\"}\n\n");
            }
        });
        resp.closeHandler(v -> {
            conn.closed = true;
            unsubscribe(subscription);
            if (expiry >= 0) {
                ctx.vertx().cancelTimer(expiry);
            }
        });

        ctx.vertx().executeBlocking(() -> {
            Optional<JsonNode> detail = RunDetails.of(id, runs, access);
            List<RunStore.StoredEvent> history = detail.isPresent() && replayFrom != null
                    ? store.events(id, replayFrom, REPLAY_LIMIT) : List.of();
            return new Object[] {detail, history};
        }, false).onComplete(ar -> {
            if (conn.closed) {
                return;
            }
            if (ar.failed()) {
                unsubscribe(subscription);
                resp.setStatusCode(500).putHeader("Content-Type", "application/json")
                        .end(Json.write(Incidents.report("event stream of run " + id, ar.cause()).body()));
                return;
            }
            @SuppressWarnings("unchecked")
            Optional<JsonNode> detail = (Optional<JsonNode>) ar.result()[0];
            @SuppressWarnings("unchecked")
            List<RunStore.StoredEvent> history = (List<RunStore.StoredEvent>) ar.result()[1];
            if (detail.isEmpty()) {
                conn.closed = true;
                unsubscribe(subscription);
                resp.setStatusCode(404).putHeader("Content-Type", "application/json")
                        .end(Json.write(Map.of("error", "no run '" + id + "'")));
                return;
            }
            resp.setChunked(true);
            resp.putHeader("Content-Type", "text/event-stream; charset=utf-8");
            resp.putHeader("Cache-Control", "no-cache");
            resp.putHeader("X-Accel-Buffering", "no");
            resp.write(frame(0, "snapshot", detail.get()));
            for (RunStore.StoredEvent e : history) {
                send(resp, conn, e.id(), frame(e.id(), e.type(), e.body()));
            }
            conn.replaying = false;
            for (Object[] p : conn.pending) {
                send(resp, conn, (Long) p[0], (String) p[1]);
            }
            conn.pending.clear();
            if (isFinal(detail.get())) {
                end(resp, conn);
                unsubscribe(subscription);
                return;
            }
            long timer = ctx.vertx().setPeriodic(15_000, t -> {
                if (!conn.closed) {
                    resp.write(": keep-alive\n\n");
                }
            });
            resp.closeHandler(v -> {
                conn.closed = true;
                ctx.vertx().cancelTimer(timer);
                unsubscribe(subscription);
            });
            resp.endHandler(v -> {
                // ended by end(): the connection may stay open for other requests
                ctx.vertx().cancelTimer(timer);
                unsubscribe(subscription);
            });
        });
    }

    private static void send(HttpServerResponse resp, Connection conn, long eventId, String frame) {
        if (eventId > 0 && eventId <= conn.lastSent) {
            return; // already sent during the replay
        }
        conn.lastSent = Math.max(conn.lastSent, eventId);
        if (!resp.closed() && !resp.ended()) {
            resp.write(frame);
        }
    }

    private static boolean isFinal(JsonNode runOrSummary) {
        return FINAL_STATES.contains(runOrSummary.path("state").asText(""));
    }

    /** Sends {@code event: end} and closes the response (on the connection's context). */
    private static void end(HttpServerResponse resp, Connection conn) {
        if (conn.closed || resp.closed() || resp.ended()) {
            return;
        }
        conn.closed = true;
        resp.end("event: end\ndata: {}\n\n");
    }

    private static void unsubscribe(AutoCloseable subscription) {
        try {
            subscription.close();
        } catch (Exception ignored) {
            // unsubscribing cannot fail in a way the client could notice
        }
    }

    private static Long parse(String s) {
        try {
            return Long.parseLong(s.strip());
        } catch (NumberFormatException e) {
            return 0L;
        }
    }

    private static String frame(long eventId, String kind, Object body) {
        StringBuilder sb = new StringBuilder();
        if (eventId > 0) {
            sb.append("id: ").append(eventId).append('\n');
        }
        sb.append("event: ").append(kind).append('\n');
        sb.append("data: ").append(Json.write(body)).append("\n\n");
        return sb.toString();
    }
}
