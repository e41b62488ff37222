package org.mpfl.engine.run;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import org.mpfl.protocol.CheckpointUpload;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.RunRequest;
import org.mpfl.protocol.digest.Sha256;

/** Checkpoint parts uploaded over HTTP exactly as a rank does ({@link CheckpointUpload}), for tests that play the rank. */
public final class HandMadeUploads {
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

    private HandMadeUploads() {
    }

    /**
     * Uploads {@code body} as the part of checkpoint {@code seq} of the rank that received {@code as}; {@code headers}
     * override or drop ({@code null} value) the headers a rank would send.
     */
    public static HttpResponse<String> upload(String engineUrl, String runId, RunRequest as, long seq, byte[] body,
                                              Map<String, String> headers) throws Exception {
        String sha = Sha256.hex(body);
        Map<String, String> h = new LinkedHashMap<>();
        h.put(CheckpointUpload.DOMAIN_HEADER, as.domainId());
        h.put(CheckpointUpload.RANK_HEADER, String.valueOf(as.rank()));
        h.put(CheckpointUpload.CHECKPOINT_HEADER, String.valueOf(seq));
        h.put(CheckpointUpload.SHA256_HEADER, sha);
        h.put(CheckpointUpload.PROOF_HEADER, proof(as.token(), as.domainId(), as.rank(), seq, sha));
        h.putAll(headers);
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(engineUrl + "/api/runs/" + runId + "/ranks/"
                + CheckpointUpload.PATH)).timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        h.forEach((k, v) -> {
            if (v != null) {
                b.header(k, v);
            }
        });
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The proof a rank holding {@code token} sends. */
    public static String proof(String token, String domain, int rank, long seq, String sha) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(new DomainToken(token).proveCheckpoint(domain, rank, seq, sha));
    }

    /** A recognisable part of rank {@code rank} for checkpoint {@code seq} (with markup and a non-ASCII letter). */
    public static String part(int rank, long seq) {
        return "{\"rank\":" + rank + ",\"checkpoint\":" + seq + ",\"vars\":{\"s\":\"<x>&amp;é\"}}";
    }
}
