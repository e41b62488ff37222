package org.mpfl.runtime.host;

import org.mpfl.runtime.settings.RuntimeSettings;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.mpfl.protocol.CheckpointUpload;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.EngineRefusal;
import org.mpfl.protocol.RunRequest;
import org.mpfl.protocol.digest.Sha256;

/**
 * Hands one rank's parts of checkpoints to the engine ({@link CheckpointUpload}): {@code POST
 * <callbackUrl>/checkpoints} with the domain, rank, checkpoint number, the part's SHA-256 and the
 * proof that binds them to the domain's token, so the token itself never travels. Each part may take
 * at most {@code mpfl.checkpoint.uploadTimeoutMs} (system property of the host, default 60 000 ms) in all,
 * and an abort of the rank's domain ends the wait at once. Within that window a part that did not reach the
 * engine is sent again, after a back-off ({@value EventPoster#FIRST_BACKOFF_MS} ms doubling up to
 * {@value EventPoster#MAX_BACKOFF_MS} ms, as the rank's events): no connection, HTTP 5xx, and any 3xx or 4xx
 * <em>without</em> the engine's {@link EngineRefusal} mark — something between the host and the engine answered
 * (a reverse proxy or load balancer while it reloads, a wrong path prefix), which says nothing about the part.
 * An engine-marked refusal (a malformed or too large part, a proof that does not verify, a domain that is over
 * for the engine) is final: the part is given up at once. Sending a part again is safe: the engine stores the
 * same part of a rank and checkpoint once. Without a callback address (no engine: tests, embedding) nothing is
 * uploaded and the checkpoint is reported as not stored.
 */
final class CheckpointUploader {
    /** How often a waiting upload looks whether the domain was aborted. */
    private static final long ABORT_POLL_MS = 100;

    private final RunRequest request;
    private final HttpClient http;
    private final URI target;
    private final BooleanSupplier aborted;
    /** How long one part may take in all, its tries and back-offs together. */
    private final Duration window;

    /** @param aborted whether the rank's domain was aborted: a waiting upload then gives up at once */
    CheckpointUploader(RunRequest request, HttpClient http, BooleanSupplier aborted) {
        this(request, http, aborted, Duration.ofMillis(RuntimeSettings.CHECKPOINT_UPLOAD_TIMEOUT_MS.get()));
    }

    /**
     * @param aborted whether the rank's domain was aborted: a waiting upload then gives up at once
     * @param window  how long one part may take in all ({@code mpfl.checkpoint.uploadTimeoutMs})
     */
    CheckpointUploader(RunRequest request, HttpClient http, BooleanSupplier aborted, Duration window) {
        this.request = request;
        this.http = http;
        this.aborted = aborted;
        this.window = window;
        String callback = request.callbackUrl();
        this.target = callback == null || callback.isBlank() ? null
                : URI.create(callback.endsWith("/") ? callback + CheckpointUpload.PATH : callback + "/" + CheckpointUpload.PATH);
    }

    /** Whether there is an engine to upload to. */
    boolean hasTarget() {
        return target != null;
    }

    /** What one try of an upload came to: {@code stored}, or why not and whether to try again. */
    private record Try(boolean stored, boolean again, String why) {
        static final Try STORED = new Try(true, false, null);

        static Try retry(String why) {
            return new Try(false, true, why);
        }

        static Try fail(String why) {
            return new Try(false, false, why);
        }
    }

    /** Uploads a part; {@code null} when the engine stored it, otherwise why not. */
    String upload(long checkpoint, byte[] part) {
        if (target == null) {
            return "no engine to store checkpoints (the run request has no callback address)";
        }
        if (request.token() == null) {
            return "the run request has no domain token to prove the checkpoint with";
        }
        String sha = Sha256.hex(part);
        byte[] proof = new DomainToken(request.token()).proveCheckpoint(request.domainId(), request.rank(), checkpoint, sha);
        HttpRequest.Builder post = HttpRequest.newBuilder(target)
                .header("Content-Type", "application/json")
                .header(CheckpointUpload.DOMAIN_HEADER, request.domainId())
                .header(CheckpointUpload.RANK_HEADER, Integer.toString(request.rank()))
                .header(CheckpointUpload.CHECKPOINT_HEADER, Long.toString(checkpoint))
                .header(CheckpointUpload.SHA256_HEADER, sha)
                .header(CheckpointUpload.PROOF_HEADER, Base64.getUrlEncoder().withoutPadding().encodeToString(proof))
                .POST(HttpRequest.BodyPublishers.ofByteArray(part));
        long started = System.nanoTime();
        long deadline = started + window.toNanos();
        long backoffMs = EventPoster.FIRST_BACKOFF_MS;
        for (int tries = 1; ; tries++) {
            Try t = send(post, deadline);
            if (t.stored()) {
                return null;
            }
            if (!t.again()) {
                return t.why();
            }
            // the next try must have time left to be worth one: otherwise the window is over
            long left = deadline - System.nanoTime();
            if (TimeUnit.MILLISECONDS.toNanos(backoffMs) >= left) {
                return "not stored within " + window.toMillis() + " ms (" + tries + (tries == 1 ? " try" : " tries")
                        + "); last: " + t.why();
            }
            if (!pause(backoffMs)) {
                return aborted.getAsBoolean() ? "the domain was aborted while the part was being stored"
                        : "interrupted while storing the part";
            }
            backoffMs = Math.min(EventPoster.MAX_BACKOFF_MS, backoffMs * 2);
        }
    }

    /** Waits {@code ms}; {@code false} when the domain was aborted or the thread interrupted meanwhile. */
    private boolean pause(long ms) {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
        for (long left = end - System.nanoTime(); left > 0; left = end - System.nanoTime()) {
            if (aborted.getAsBoolean()) {
                return false;
            }
            try {
                Thread.sleep(Math.max(1, Math.min(ABORT_POLL_MS, TimeUnit.NANOSECONDS.toMillis(left))));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return !aborted.getAsBoolean();
    }

    /** One try, waiting at most until {@code deadline} (nanoTime) and no longer than an abort of the domain. */
    private Try send(HttpRequest.Builder post, long deadline) {
        long leftMs = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
        CompletableFuture<HttpResponse<String>> sent =
                http.sendAsync(post.timeout(Duration.ofMillis(leftMs)).build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        long hardEnd = deadline + 1_000_000_000L;
        try {
            // like every blocking call of a rank, the wait ends soon after an abort of its domain
            while (!sent.isDone()) {
                if (aborted.getAsBoolean()) {
                    sent.cancel(true);
                    return Try.fail("the domain was aborted while the part was being stored");
                }
                if (System.nanoTime() > hardEnd) {
                    throw new TimeoutException();
                }
                try {
                    sent.get(ABORT_POLL_MS, TimeUnit.MILLISECONDS);
                } catch (TimeoutException stillWaiting) {
                    // look at the abort flag again
                }
            }
            return judge(sent.get());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Try.fail("interrupted while storing the part");
        } catch (TimeoutException e) {
            sent.cancel(true);
            return Try.fail(noAnswer());
        } catch (ExecutionException e) {
            if (e.getCause() instanceof java.net.http.HttpTimeoutException && !(e.getCause() instanceof java.net.http.HttpConnectTimeoutException)) {
                // a try waits for the rest of the window: its time-out is the window's
                return Try.fail(noAnswer());
            }
            return Try.retry("cannot reach the engine at " + target + ": " + e.getCause());
        }
    }

    private String noAnswer() {
        return "the engine did not answer within " + window.toMillis() + " ms";
    }

    /** Stored on 2xx; final on the engine's marked refusal; anything else (5xx, an unmarked 3xx or 4xx) is tried again. */
    private static Try judge(HttpResponse<String> answer) {
        int code = answer.statusCode();
        if (code / 100 == 2) {
            return Try.STORED;
        }
        String body = answer.body() == null ? "" : answer.body().strip();
        // bounded: whoever answers at the callback address could answer anything
        String said = body.isEmpty() ? "" : " " + (body.length() > 200 ? body.substring(0, 200) + "..." : body);
        Optional<EngineRefusal> mark = EngineRefusal.of(code, answer.headers().firstValue(EngineRefusal.HEADER).orElse(null));
        if (mark.isPresent()) {
            return Try.fail("the engine refused the part: HTTP " + code + " (" + mark.get().value() + ")" + said);
        }
        if (code / 100 == 5) {
            return Try.retry("HTTP " + code + said);
        }
        return Try.retry("HTTP " + code + " without the engine's " + EngineRefusal.HEADER
                + " mark (a proxy or load balancer in between, a wrong path prefix?)" + said);
    }
}
