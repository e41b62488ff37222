package org.mpfl.engine.rest;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.Map;
import org.mpfl.engine.json.Json;
import org.mpfl.engine.run.CheckpointIntake;
import org.mpfl.engine.run.IntakeRefused;
import org.mpfl.protocol.CheckpointUpload;
import org.mpfl.protocol.EngineRefusal;

/**
 * {@code POST /api/runs/{id}/ranks/checkpoints}: a rank's part of a checkpoint ({@link CheckpointUpload}).
 *
 * <p>Served on the Vert.x router ahead of everything else (also ahead of {@link EarlyAuthorization}:
 * ranks carry no engine credential, their proof is in the headers), so that the part is admitted from
 * its headers before one byte of the body is read: unknown run, wrong domain, rank or proof are
 * refused at once, and so is an announced length above the bound (413); a body sent without a length
 * is cut off at the bound. The body is read into memory (at most the bound) and handed to a worker
 * thread to be checked against its SHA-256 and written. A body that does not arrive within
 * {@link #UPLOAD_TIMEOUT_MS} ends the connection. Every refusal closes the connection (an HTTP/2
 * request, one stream of a shared connection: resets its stream), so an unread body is never waited for.
 * Every refusal of a part the engine will never take carries its {@link EngineRefusal} mark ({@link CheckpointIntake#admit},
 * {@link CheckpointIntake#accept}; here a malformed Content-Length and a body cut off at the bound,
 * {@link EngineRefusal#BATCH_REJECTED}): the host gives the part up on the mark alone. A body that did not arrive in
 * time (408) and a failure to store it (500) are unmarked: the host sends the part again within its window.
 * An admitted part's proof proves its connection ({@link GuardedHttpServer#prove}), as a host credential
 * would: its body is not held to a stranger's proof deadline; a refused part leaves the connection a stranger's.
 */
public final class CheckpointUploads {
    /** How long one part may take to arrive once admitted. */
    static final long UPLOAD_TIMEOUT_MS = 120_000;

    private CheckpointUploads() {
    }

    /** Adds the route to the router, before every other {@code /api} handler. */
    public static void install(Router router, CheckpointIntake intake) {
        router.post("/api/runs/:id/ranks/" + CheckpointUpload.PATH).order(-2000).handler(ctx -> serve(ctx, intake));
    }

    private static void serve(RoutingContext ctx, CheckpointIntake intake) {
        HttpServerRequest req = ctx.request();
        long announced = -1;
        String length = req.getHeader("Content-Length");
        if (length != null) {
            try {
                announced = Long.parseLong(length.strip());
            } catch (NumberFormatException e) {
                refuse(ctx, IntakeRefused.rejected(400, "Content-Length is not a number"));
                return;
            }
        }
        CheckpointIntake.Admission admission;
        try {
            admission = intake.admit(ctx.pathParam("id"), req.getHeader(CheckpointUpload.DOMAIN_HEADER),
                    req.getHeader(CheckpointUpload.RANK_HEADER), req.getHeader(CheckpointUpload.CHECKPOINT_HEADER),
                    req.getHeader(CheckpointUpload.SHA256_HEADER), req.getHeader(CheckpointUpload.PROOF_HEADER), announced);
        } catch (IntakeRefused e) {
            refuse(ctx, e);
            return;
        }
        // proved by the domain token: the connection is no stranger's while the body arrives (a large part may take
        // longer than the proof deadline); UPLOAD_TIMEOUT_MS bounds it from here
        GuardedHttpServer.prove(ctx);
        long max = intake.maxPartBytes();
        Buffer body = Buffer.buffer((int) Math.min(Math.max(announced, 0), Math.min(max, 1 << 20)));
        boolean[] done = {false};
        long timer = ctx.vertx().setTimer(UPLOAD_TIMEOUT_MS, t -> {
            if (!done[0]) {
                done[0] = true;
                refuse(ctx, 408, "the checkpoint part did not arrive within " + UPLOAD_TIMEOUT_MS / 1000 + " s");
            }
        });
        req.handler(chunk -> {
            if (done[0]) {
                return;
            }
            if ((long) body.length() + chunk.length() > max) {
                done[0] = true;
                ctx.vertx().cancelTimer(timer);
                refuse(ctx, IntakeRefused.rejected(413, "a checkpoint part may have at most " + max + " bytes"));
                return;
            }
            body.appendBuffer(chunk);
        });
        req.exceptionHandler(e -> {
            done[0] = true;
            ctx.vertx().cancelTimer(timer);
        });
        req.endHandler(v -> {
            if (done[0]) {
                return;
            }
            done[0] = true;
            ctx.vertx().cancelTimer(timer);
            byte[] bytes = body.getBytes();
            // hashing and writing to disk block: off the event loop
            ctx.vertx().<Map<String, Object>>executeBlocking(() -> CheckpointIntake.answer(intake.accept(admission, bytes)), false)
                    .onComplete(ar -> {
                        if (ar.succeeded()) {
                            answer(ctx, 201, ar.result(), false, null);
                        } else if (ar.cause() instanceof IntakeRefused r && r.status() != 500) {
                            answer(ctx, r.status(), Map.of("error", r.getMessage()), false, r.mark().orElse(null));
                        } else {
                            // a part that could not be stored: the host sends it again; why (a path, the disk) is the operator's
                            answer(ctx, 500, Incidents.report("checkpoint upload", ar.cause()).body(), false, null);
                        }
                    });
        });
        req.resume();
    }

    /**
     * Answers an intake's refusal and closes the connection (also {@link RankEventAdmission}'s): with its
     * {@link EngineRefusal} mark when it has one (the domain is over for the engine, or the post will never be taken),
     * so that the host tells it apart from the same status of something between it and the engine.
     */
    static void refuse(RoutingContext ctx, IntakeRefused e) {
        answer(ctx, e.status(), Map.of("error", e.getMessage()), true, e.mark().orElse(null));
    }

    /** Answers a refusal and closes the connection. */
    static void refuse(RoutingContext ctx, int status, String message) {
        answer(ctx, status, Map.of("error", message), true, null);
    }

    /** @param mark the engine's mark of the refusal ({@link EngineRefusal#HEADER}), {@code null}: none */
    private static void answer(RoutingContext ctx, int status, Object body, boolean close, EngineRefusal mark) {
        HttpServerResponse resp = ctx.response();
        if (resp.ended() || resp.closed()) {
            return;
        }
        resp.setStatusCode(status).putHeader("Content-Type", "application/json");
        if (mark != null) {
            resp.putHeader(EngineRefusal.HEADER, mark.value());
        }
        if (close && ctx.request().version() == HttpVersion.HTTP_2) {
            // one stream of a connection other requests share: after the answer, a reset with NO_ERROR asks the
            // client to stop sending the body (RFC 9113, 8.1), which flow control meanwhile bounds to a window
            resp.end(Json.write(body) + "\n").onComplete(x -> resp.reset(0));
        } else if (close) {
            // the body may be unread: end the connection rather than read or wait for it
            resp.putHeader("Connection", "close");
            resp.end(Json.write(body) + "\n").onComplete(x -> ctx.request().connection().close());
        } else {
            resp.end(Json.write(body) + "\n");
        }
    }
}
