package org.mpfl.runtime.host;

import org.mpfl.runtime.settings.RuntimeSettings;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import org.mpfl.protocol.CheckpointUpload;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.RunRequest;
import org.mpfl.protocol.digest.Sha256;

/**
 * Hands one rank's parts of checkpoints to the engine ({@link CheckpointUpload}): {@code POST
 * <callbackUrl>/checkpoints} with the domain, rank, checkpoint number, the part's SHA-256 and the
 * proof that binds them to the domain's token, so the token itself never travels. Each upload waits at
 * most {@code mpfl.checkpoint.uploadTimeoutMs} (system property of the host, default 60 000 ms).
 * Without a callback address (no engine: tests, embedding) nothing is uploaded and the checkpoint
 * is reported as not stored.
 */
final class CheckpointUploader {
    private static final Duration TIMEOUT = Duration.ofMillis(RuntimeSettings.CHECKPOINT_UPLOAD_TIMEOUT_MS.get());

    /** How often a waiting upload looks whether the domain was aborted. */
    private static final long ABORT_POLL_MS = 100;

    private final RunRequest request;
    private final HttpClient http;
    private final URI target;
    private final java.util.function.BooleanSupplier aborted;

    /** @param aborted whether the rank's domain was aborted: a waiting upload then gives up at once */
    CheckpointUploader(RunRequest request, HttpClient http, java.util.function.BooleanSupplier aborted) {
        this.request = request;
        this.http = http;
        this.aborted = aborted;
        String callback = request.callbackUrl();
        this.target = callback == null || callback.isBlank() ? null
                : URI.create(callback.endsWith("/") ? callback + CheckpointUpload.PATH : callback + "/" + CheckpointUpload.PATH);
    }

    /** Whether there is an engine to upload to. */
    boolean hasTarget() {
        return target != null;
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
        HttpRequest post = HttpRequest.newBuilder(target).timeout(TIMEOUT)
                .header("Content-Type", "application/json")
                .header(CheckpointUpload.DOMAIN_HEADER, request.domainId())
                .header(CheckpointUpload.RANK_HEADER, Integer.toString(request.rank()))
                .header(CheckpointUpload.CHECKPOINT_HEADER, Long.toString(checkpoint))
                .header(CheckpointUpload.SHA256_HEADER, sha)
                .header(CheckpointUpload.PROOF_HEADER, Base64.getUrlEncoder().withoutPadding().encodeToString(proof))
                .POST(HttpRequest.BodyPublishers.ofByteArray(part)).build();
        java.util.concurrent.CompletableFuture<HttpResponse<String>> sent =
                http.sendAsync(post, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        long deadline = System.nanoTime() + TIMEOUT.toNanos() + 1_000_000_000L;
        try {
            // like every blocking call of a rank, the wait ends soon after an abort of its domain
            while (!sent.isDone()) {
                if (aborted.getAsBoolean()) {
                    sent.cancel(true);
                    return "the domain was aborted while the part was being stored";
                }
                if (System.nanoTime() > deadline) {
                    throw new java.util.concurrent.TimeoutException();
                }
                try {
                    sent.get(ABORT_POLL_MS, java.util.concurrent.TimeUnit.MILLISECONDS);
                } catch (java.util.concurrent.TimeoutException stillWaiting) {
                    // look at the abort flag again
                }
            }
            HttpResponse<String> answer = sent.get();
            if (answer.statusCode() / 100 != 2) {
                String body = answer.body() == null ? "" : answer.body().strip();
                return "the engine refused the part: HTTP " + answer.statusCode()
                        + (body.isEmpty() ? "" : " " + (body.length() > 200 ? body.substring(0, 200) + "..." : body));
            }
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted while storing the part";
        } catch (java.util.concurrent.TimeoutException e) {
            sent.cancel(true);
            return "the engine did not answer within " + TIMEOUT.toMillis() + " ms";
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof java.net.http.HttpTimeoutException) {
                return "the engine did not answer within " + TIMEOUT.toMillis() + " ms";
            }
            return "cannot reach the engine at " + target + ": " + e.getCause();
        }
    }
}
