package org.mpfl.engine.rest;

import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import org.mpfl.engine.run.IntakeRefused;
import org.mpfl.engine.run.RankEventIntake;
import org.mpfl.protocol.EngineRefusal;
import org.mpfl.protocol.RankEventPost;

/**
 * The head check of {@code POST /api/runs/{id}/ranks/events} ({@link RankEventPost}): on the Vert.x
 * router ahead of everything else (as {@link CheckpointUploads}: ranks carry no engine credential, their
 * proof is in the headers), a post is {@linkplain RankEventIntake#admit admitted} from its headers
 * before one byte of its body is read — an unknown run (404), missing headers (401), a domain that is
 * not the run's (403) or a proof that does not verify (403) is answered at once and the connection
 * closed, so an unread body of up to the server's bound (256 MB) is never read nor waited for; so is an admitted
 * post that announces a body above that bound (413, marked {@link EngineRefusal#BATCH_REJECTED} as the 400 and 401
 * of a malformed post are: the host drops that batch on the engine's mark, and keeps it on a proxy's unmarked 413). An
 * admitted post goes on to the REST route ({@link RunEndpoints#rankEvents}), which reads the body and
 * checks it against the admitted headers. Its proof, checked before the body is read, proves the
 * connection ({@link GuardedHttpServer#prove}), as a host credential would: a large post from a host
 * without a credential of its own is not cut at a stranger's proof deadline; a refused post leaves the
 * connection a stranger's (and closes it).
 */
public final class RankEventAdmission {
    private RankEventAdmission() {
    }

    /**
     * Adds the check to the router, before every other {@code /api} handler.
     *
     * @param maxBodyBytes the server's bound on a request body: an admitted post announcing more is refused (413)
     */
    public static void install(Router router, RankEventIntake intake, long maxBodyBytes) {
        router.post("/api/runs/:id/ranks/" + RankEventPost.PATH).order(-2000).handler(ctx -> admit(ctx, intake, maxBodyBytes));
    }

    private static void admit(RoutingContext ctx, RankEventIntake intake, long maxBodyBytes) {
        HttpServerRequest req = ctx.request();
        try {
            // cheap (a map look-up and one HMAC), as the checkpoint parts' admission: on the event loop
            intake.admit(ctx.pathParam("id"), req.getHeader(RankEventPost.DOMAIN_HEADER), req.getHeader(RankEventPost.SHA256_HEADER),
                    req.getHeader(RankEventPost.PROOF_HEADER));
        } catch (IntakeRefused e) {
            CheckpointUploads.refuse(ctx, e);
            return;
        }
        if (announcedLength(req) > maxBodyBytes) {
            // the engine's own answer (the server's body bound would answer 413 unmarked, as a proxy's limit does)
            CheckpointUploads.refuse(ctx, IntakeRefused.rejected(413, "a post of rank events may have at most " + maxBodyBytes
                    + " bytes, this one announces " + req.getHeader("Content-Length")));
            return;
        }
        // the domain token's proof is a credential: the connection leaves the strangers' deadline for its body
        GuardedHttpServer.prove(ctx);
        ctx.next();
    }

    /** The request's Content-Length, -1 when it has none or an unreadable one (the server's own checks answer then). */
    private static long announcedLength(HttpServerRequest req) {
        String v = req.getHeader("Content-Length");
        try {
            return v == null ? -1 : Long.parseLong(v.strip());
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
