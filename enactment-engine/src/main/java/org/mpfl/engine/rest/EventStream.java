package org.mpfl.engine.rest;

import com.fasterxml.jackson.databind.JsonNode;
import io.vertx.core.Context;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
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
 * A run that is resumed within that grace (a cancel, then Resume at once) keeps its stream: the
 * {@code run} event of its new attempt cancels the end.
 *
 * <p>Bounded for a viewer that does not read (docs/security.md, "Event streams"): a caller (a user, the
 * admin token, or an anonymous reader's address) holds at most {@link #MAX_STREAMS_PER_CALLER} streams
 * (429 beyond); the replay is read from the store a page at a time, the next page only once the viewer
 * has taken the previous one (Vert.x's write queue drained); and a live viewer whose unread events pass
 * {@link #MAX_BUFFERED_BYTES} is dropped: {@code event: dropped} (an {@code error} says why) and the
 * connection closed. A browser's {@code EventSource} then reconnects by itself with
 * {@code Last-Event-ID} and is replayed what it missed. Before, a replay of 50,000 events was read into
 * memory at once and written to a viewer that never read them, for as many streams as it opened.
 *
 * <p>Threading: the database is read on a worker thread; every write to the response happens on the
 * request's event-loop context, and live events are handed over to that context — so nothing blocks
 * the event loop and no lock is held while writing (a write from another thread can wait for the
 * event loop, which must therefore never wait for that thread).
 */
public final class EventStream {
    /** Most stored events one stream replays. */
    private static final int REPLAY_LIMIT = 50_000;
    /** Stored events read from the store at a time for a replay. */
    static final int REPLAY_PAGE = 500;
    /** How long a stream stays open after its run's final state event, for the ranks' last events. */
    static final long END_GRACE_MS = 2_000;
    /** Most streams one caller holds open at once. */
    static final int MAX_STREAMS_PER_CALLER = 32;
    /** Most bytes of events a stream keeps for a viewer that does not take them, beyond Vert.x's write queue. */
    static final int MAX_BUFFERED_BYTES = 1 << 20;
    /** Vert.x's write queue of a stream: beyond it, events wait in the stream's own bounded buffer. */
    private static final int WRITE_QUEUE_BYTES = 256 * 1024;
    /** How long a dropped viewer's connection may take to receive {@code event: dropped} before it is closed. */
    private static final long DROP_CLOSE_MS = 5_000;
    private static final java.util.Set<String> FINAL_STATES = java.util.Set.of("SUCCEEDED", "FAILED", "CANCELLED");

    private final RunService runs;
    private final RunStore store;
    private final AccessPolicy access;
    /** Open streams by caller; touched from every event loop. */
    private final Map<String, Integer> open = new ConcurrentHashMap<>();

    private EventStream(RunService runs, RunStore store, AccessPolicy access) {
        this.runs = runs;
        this.store = store;
        this.access = access;
    }

    /** Adds the stream route to the router. */
    public static void install(Router router, RunService runs, RunStore store, AccessPolicy access) {
        EventStream streams = new EventStream(runs, store, access);
        router.get("/api/runs/:id/events").handler(streams::serve);
    }

    /** A frame kept for the viewer; live ones count against its bound (a replay's page is bounded by its size). */
    private record Frame(String text, boolean live) {
    }

    /** Per-connection state, touched only on the connection's event-loop context. */
    private static final class Connection {
        final RoutingContext ctx;
        final HttpServerResponse resp;
        long lastSent;
        boolean replaying = true;
        boolean closed;
        long endTimer = -1;
        /** The run ended while the replay was still being taken: end once it is done. */
        boolean endAfterReplay;
        /** Frames not yet handed to Vert.x (its write queue was full). */
        final ArrayDeque<Frame> queue = new ArrayDeque<>();
        /** Live events that arrived during the replay, sent after it. */
        final List<Object[]> pending = new ArrayList<>();
        /** Bytes of live events kept (in {@link #queue} or {@link #pending}): bounded by {@link #MAX_BUFFERED_BYTES}. */
        long liveBytes;
        final List<Runnable> onClose = new ArrayList<>();

        Connection(RoutingContext ctx) {
            this.ctx = ctx;
            this.resp = ctx.response();
        }

        /** Ends this connection's stream for good: its timers and subscription go, once. */
        void close() {
            if (!closed) {
                closed = true;
                queue.clear();
                pending.clear();
                onClose.forEach(Runnable::run);
            }
        }
    }

    private void serve(RoutingContext ctx) {
        if (!ctx.request().isEnded()) {
            // the access filter paused the request until it was admitted; a stream reads nothing more, but
            // must see the client go away at once (a paused connection would notice only at the next write)
            ctx.request().resume();
        }
        String caller = callerKey(ctx);
        if (open.merge(caller, 1, Integer::sum) > MAX_STREAMS_PER_CALLER) {
            open.computeIfPresent(caller, (k, n) -> n <= 1 ? null : n - 1);
            ctx.response().setStatusCode(429).putHeader("Content-Type", "application/json").putHeader("Retry-After", "10")
                    .end(Json.write(Map.of("error", "at most " + MAX_STREAMS_PER_CALLER + " event streams per caller are open at once;"
                            + " close one first")));
            return;
        }
        String id = ctx.pathParam("id");
        Context context = ctx.vertx().getOrCreateContext();
        Connection conn = new Connection(ctx);
        conn.onClose.add(() -> open.computeIfPresent(caller, (k, n) -> n <= 1 ? null : n - 1));
        String lastId = ctx.request().getHeader("Last-Event-ID");
        String after = ctx.request().getParam("after");
        Long replayFrom = lastId != null ? parse(lastId) : after != null ? parse(after) : null;

        // subscribe first so nothing between the snapshot and the live events is lost
        AutoCloseable subscription = runs.listen(id, (eventId, kind, body) -> {
            String frame = frame(eventId, kind, body);
            boolean run = "run".equals(kind);
            boolean ends = run && isFinal(Json.MAPPER.valueToTree(body));
            context.runOnContext(v -> live(conn, eventId, frame, run, ends));
        });
        conn.onClose.add(() -> unsubscribe(subscription));
        // admitted with a user's token, the stream lasts as long as the token: one that expired (or was revoked at the
        // issuer) must not keep a user reading; the console's EventSource reconnects with its session's fresh token
        long expiresAtMs = ctx.user() == null ? 0 : Caller.fromPrincipal(ctx.user().principal()).expiresAtMs();
        if (expiresAtMs > 0) {
            long expiry = ctx.vertx().setTimer(Math.max(1, expiresAtMs - System.currentTimeMillis()), t -> {
                if (!conn.closed && !conn.resp.closed() && !conn.resp.ended()) {
                    conn.close();
                    // not "end": the run goes on; a client that wants more reconnects with a token that is still valid
                    conn.resp.end("event: expired\ndata: {\"error\":\"the token this stream was opened with has expired\"}\n\n");
                }
            });
            conn.onClose.add(() -> ctx.vertx().cancelTimer(expiry));
        }
        conn.resp.closeHandler(v -> conn.close());

        ctx.vertx().executeBlocking(() -> RunDetails.of(id, runs, access), false).onComplete(ar -> {
            if (conn.closed) {
                return;
            }
            if (ar.failed()) {
                conn.close();
                conn.resp.setStatusCode(500).putHeader("Content-Type", "application/json")
                        .end(Json.write(Incidents.report("event stream of run " + id, ar.cause()).body()));
                return;
            }
            Optional<JsonNode> detail = ar.result();
            if (detail.isEmpty()) {
                conn.close();
                conn.resp.setStatusCode(404).putHeader("Content-Type", "application/json")
                        .end(Json.write(Map.of("error", "no run '" + id + "'")));
                return;
            }
            HttpServerResponse resp = conn.resp;
            resp.setChunked(true);
            resp.setWriteQueueMaxSize(WRITE_QUEUE_BYTES);
            resp.putHeader("Content-Type", "text/event-stream; charset=utf-8");
            resp.putHeader("Cache-Control", "no-cache");
            resp.putHeader("X-Accel-Buffering", "no");
            if (AllowedMethods.head(ctx)) {
                // a HEAD asks for the stream's headers only: no snapshot, no events, no stream left open
                conn.close();
                resp.end();
                return;
            }
            resp.write(frame(0, "snapshot", detail.get()));
            resp.drainHandler(v -> pump(conn));
            long timer = ctx.vertx().setPeriodic(15_000, t -> {
                if (!conn.closed) {
                    resp.write(": keep-alive\n\n");
                }
            });
            conn.onClose.add(() -> ctx.vertx().cancelTimer(timer));
            // ended by end(): the connection may stay open for other requests
            resp.endHandler(v -> conn.close());
            boolean ended = isFinal(detail.get());
            replay(conn, id, replayFrom, 0, () -> {
                if (ended) {
                    end(conn);
                }
            });
        });
    }

    /**
     * Replays stored events after {@code from} a page at a time, each page read once the viewer took the previous one;
     * then sends what arrived live meanwhile and {@code then} runs. Without {@code from}, nothing is replayed.
     */
    private void replay(Connection conn, String id, Long from, int replayed, Runnable then) {
        if (conn.closed) {
            return;
        }
        if (from == null || replayed >= REPLAY_LIMIT) {
            conn.replaying = false;
            List<Object[]> pending = new ArrayList<>(conn.pending);
            conn.pending.clear();
            conn.liveBytes = 0;
            for (Object[] p : pending) {
                send(conn, (Long) p[0], (String) p[1]);
            }
            then.run();
            if (conn.endAfterReplay) {
                end(conn);
            }
            return;
        }
        if (!conn.queue.isEmpty() || conn.resp.writeQueueFull()) {
            // the viewer has not taken the previous page yet: read the next once it has
            conn.resp.drainHandler(v -> {
                pump(conn);
                conn.resp.drainHandler(w -> pump(conn));
                replay(conn, id, from, replayed, then);
            });
            return;
        }
        int limit = Math.min(REPLAY_PAGE, REPLAY_LIMIT - replayed);
        conn.ctx.vertx().executeBlocking(() -> store.events(id, from, limit), false).onComplete(ar -> {
            if (conn.closed) {
                return;
            }
            if (ar.failed()) {
                Incidents.report("event stream replay of run " + id, ar.cause());
                conn.close();
                conn.resp.reset();
                return;
            }
            List<RunStore.StoredEvent> page = ar.result();
            for (RunStore.StoredEvent e : page) {
                conn.lastSent = Math.max(conn.lastSent, e.id());
                enqueue(conn, frame(e.id(), e.type(), e.body()), false);
            }
            Long next = page.size() < limit ? null : page.get(page.size() - 1).id();
            replay(conn, id, next, replayed + page.size(), then);
        });
    }

    /** A live event: sent (or kept until the replay is done); a run's final state ends the stream after the grace. */
    private static void live(Connection conn, long eventId, String frame, boolean run, boolean ends) {
        if (conn.closed) {
            return;
        }
        if (conn.replaying) {
            conn.pending.add(new Object[] {eventId, frame});
            conn.liveBytes += frame.length();
            if (conn.liveBytes > MAX_BUFFERED_BYTES) {
                drop(conn);
                return;
            }
        } else {
            send(conn, eventId, frame);
        }
        if (!run || conn.closed) {
            return;
        }
        if (conn.endTimer >= 0) {
            // a final state, then another: the run was resumed within the grace, and its stream goes on
            conn.ctx.vertx().cancelTimer(conn.endTimer);
            conn.endTimer = -1;
        }
        conn.endAfterReplay = false;
        if (ends) {
            conn.endTimer = conn.ctx.vertx().setTimer(END_GRACE_MS, t -> {
                conn.endTimer = -1;
                end(conn);
            });
        }
    }

    private static void send(Connection conn, long eventId, String frame) {
        if (eventId > 0 && eventId <= conn.lastSent) {
            return; // already sent during the replay
        }
        conn.lastSent = Math.max(conn.lastSent, eventId);
        enqueue(conn, frame, true);
    }

    /**
     * Hands a frame to Vert.x, or keeps it while Vert.x's write queue is full; a {@code live} frame that would keep
     * more than {@link #MAX_BUFFERED_BYTES} of live events drops the viewer. A replay's page is bounded by its size.
     */
    private static void enqueue(Connection conn, String frame, boolean live) {
        if (conn.closed || conn.resp.closed() || conn.resp.ended()) {
            return;
        }
        if (conn.queue.isEmpty() && !conn.resp.writeQueueFull()) {
            conn.resp.write(frame);
            return;
        }
        if (live && conn.liveBytes + frame.length() > MAX_BUFFERED_BYTES) {
            drop(conn);
            return;
        }
        conn.queue.add(new Frame(frame, live));
        if (live) {
            conn.liveBytes += frame.length();
        }
    }

    /** Hands kept frames to Vert.x while its write queue has room (called when it drained). */
    private static void pump(Connection conn) {
        while (!conn.closed && !conn.queue.isEmpty() && !conn.resp.writeQueueFull()) {
            Frame f = conn.queue.poll();
            if (f.live()) {
                conn.liveBytes -= f.text().length();
            }
            conn.resp.write(f.text());
        }
    }

    /**
     * Drops a viewer that does not take its events: {@code event: dropped}, then the connection closed (at once once
     * that is written, at the latest after {@link #DROP_CLOSE_MS}), so its buffers go.
     */
    private static void drop(Connection conn) {
        conn.close();
        HttpServerResponse resp = conn.resp;
        if (resp.closed() || resp.ended()) {
            return;
        }
        // an HTTP/2 stream is reset alone (the connection may carry the viewer's other requests)
        Runnable release = conn.ctx.request().version() == io.vertx.core.http.HttpVersion.HTTP_2 ? () -> resp.reset(0)
                : () -> conn.ctx.request().connection().close();
        long deadline = conn.ctx.vertx().setTimer(DROP_CLOSE_MS, t -> release.run());
        resp.end("event: dropped\ndata: " + Json.write(Map.of("error", "this viewer did not read the stream's events as fast as"
                + " they came; reconnect with Last-Event-ID to be replayed what it missed")) + "\n\n").onComplete(x -> {
                    conn.ctx.vertx().cancelTimer(deadline);
                    release.run();
                });
    }

    /** Who holds a stream, for {@link #MAX_STREAMS_PER_CALLER}: a credential's holder, else the source address. */
    private static String callerKey(RoutingContext ctx) {
        Caller c = ctx.user() == null ? Caller.nobody() : Caller.fromPrincipal(ctx.user().principal());
        if (c.kind() == Caller.Kind.ANONYMOUS) {
            return "address " + (ctx.request().remoteAddress() == null ? "?" : ctx.request().remoteAddress().hostAddress());
        }
        return c.kind() + " " + c.name();
    }

    private static boolean isFinal(JsonNode runOrSummary) {
        return FINAL_STATES.contains(runOrSummary.path("state").asText(""));
    }

    /** Sends {@code event: end} after what is still kept, and closes the response (on the connection's context). */
    private static void end(Connection conn) {
        if (conn.closed || conn.resp.closed() || conn.resp.ended()) {
            return;
        }
        if (conn.replaying) {
            conn.endAfterReplay = true;
            return;
        }
        if (!conn.queue.isEmpty()) {
            // the last events first: end once the viewer took them (or is dropped meanwhile)
            conn.resp.drainHandler(v -> {
                pump(conn);
                end(conn);
            });
            return;
        }
        conn.close();
        conn.resp.end("event: end\ndata: {}\n\n");
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
