package org.mpfl.engine.rest;

import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import org.mpfl.engine.run.IntakeRefused;
import org.mpfl.engine.run.RankEventIntake;
import org.mpfl.protocol.RankEventPost;

/**
 * The head check of {@code POST /api/runs/{id}/ranks/events} ({@link RankEventPost}): on the Vert.x
 * router ahead of everything else (as {@link CheckpointUploads}: ranks carry no engine credential, their
 * proof is in the headers), a post is {@linkplain RankEventIntake#admit admitted} from its headers
 * before one byte of its body is read — an unknown run (404), missing headers (401), a domain that is
 * not the run's (403) or a proof that does not verify (403) is answered at once and the connection
 * closed, so an unread body of up to the server's bound (256 MB) is never read nor waited for. An
 * admitted post goes on to the REST route ({@link RunEndpoints#rankEvents}), which reads the body and
 * checks it against the admitted headers. Its proof, checked before the body is read, proves the
 * connection ({@link GuardedHttpServer#prove}), as a host credential would: a large post from a host
 * without a credential of its own is not cut at a stranger's proof deadline; a refused post leaves the
 * connection a stranger's (and closes it).
 */
public final class RankEventAdmission {
    private RankEventAdmission() {
    }

    /** Adds the check to the router, before every other {@code /api} handler. */
    public static void install(Router router, RankEventIntake intake) {
        router.post("/api/runs/:id/ranks/" + RankEventPost.PATH).order(-2000).handler(ctx -> admit(ctx, intake));
    }

    private static void admit(RoutingContext ctx, RankEventIntake intake) {
        HttpServerRequest req = ctx.request();
        try {
            // cheap (a map look-up and one HMAC), as the checkpoint parts' admission: on the event loop
            intake.admit(ctx.pathParam("id"), req.getHeader(RankEventPost.DOMAIN_HEADER), req.getHeader(RankEventPost.SHA256_HEADER),
                    req.getHeader(RankEventPost.PROOF_HEADER));
        } catch (IntakeRefused e) {
            CheckpointUploads.refuse(ctx, e);
            return;
        }
        // the domain token's proof is a credential: the connection leaves the strangers' deadline for its body
        GuardedHttpServer.prove(ctx);
        ctx.next();
    }
}
