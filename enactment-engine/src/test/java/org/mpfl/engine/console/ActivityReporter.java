package org.mpfl.engine.console;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.mpfl.runtime.api.RankContext;

/**
 * Lets a hand-written test rank program report what it is doing as the MPFL rank interpreter does:
 * ACTIVITY events (with a source location) and WAIT events (what a blocked rank waits for), POSTed
 * to the engine's rank-event callback of its run, synchronously and in order. Runs inside the
 * service-host process. Sequence numbers start at one million so that they never collide with the
 * host's own events of the same rank.
 */
public final class ActivityReporter {
    /** The run parameter that carries the callback address (added by {@link ReportingInvoker}). */
    public static final String CALLBACK_PARAM = "console.test.callback";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final RankContext ctx;
    private final URI target;
    private long seq = 1_000_000;

    private ActivityReporter(RankContext ctx, URI target) {
        this.ctx = ctx;
        this.target = target;
    }

    /** A reporter for this rank; it reports nothing when the run has no callback. */
    public static ActivityReporter of(RankContext ctx) {
        Object callback = ctx.params().get(CALLBACK_PARAM);
        return new ActivityReporter(ctx, callback == null ? null : URI.create(callback + "/events"));
    }

    /** The rank starts an activity, e.g. {@code activity("send", "ring.mpfl.xml:10:7")}. */
    public void activity(String activity, String location) {
        post("ACTIVITY", activity, location, null);
    }

    /** The rank blocks, e.g. {@code waiting("receive", "ring.mpfl.xml:11:7", "receive from 3 tag 0 comm world")}. */
    public void waiting(String activity, String location, String what) {
        post("WAIT", activity, location, what);
    }

    private synchronized void post(String type, String activity, String location, String message) {
        if (target == null) {
            return;
        }
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("domainId", ctx.domainId());
        e.put("rank", ctx.world().rank());
        e.put("seq", seq++);
        e.put("timeMs", System.currentTimeMillis());
        e.put("type", type);
        e.put("activity", activity);
        e.put("location", location);
        e.put("message", message);
        try {
            HttpResponse<Void> r = HTTP.send(HttpRequest.newBuilder(target).timeout(Duration.ofSeconds(5))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(e))).build(),
                    HttpResponse.BodyHandlers.discarding());
            if (r.statusCode() >= 300) {
                throw new IllegalStateException("the engine refused a " + type + " event: HTTP " + r.statusCode());
            }
        } catch (java.io.IOException ex) {
            throw new IllegalStateException("cannot report a " + type + " event: " + ex, ex);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reporting", ex);
        }
    }
}
