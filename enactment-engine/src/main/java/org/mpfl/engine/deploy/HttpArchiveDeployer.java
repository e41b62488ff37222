package org.mpfl.engine.deploy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.mpfl.engine.registry.HostInfo;
import org.mpfl.protocol.tls.TlsSettings;

/**
 * Pushes an archive to a host with {@code POST <deployUrl>?service=NAME} (body: the archive bytes,
 * {@code application/octet-stream}); any 2xx answer means deployed. The host side is the service
 * host's deployment endpoint (see {@link HostInfo#deployUrl()}). The whole exchange, the answer's
 * body included, is bounded by the timeout, and at most {@value #MAX_ANSWER_BYTES} bytes of the
 * answer are read: a host that stalls or answers without end cannot hold up a run's start.
 */
public final class HttpArchiveDeployer implements ArchiveDeployer {
    private final HttpClient http;
    private final Duration timeout;
    private final Function<String, String> authorizations;

    /**
     * @param timeout        bound on one deployment
     * @param authorizations the {@code Authorization} header for a host id (the engine's key for that
     *                       host, useless at any other), or {@code null} for a host without a credential
     */
    public HttpArchiveDeployer(Duration timeout, Function<String, String> authorizations) {
        this(timeout, authorizations, TlsSettings.NONE);
    }

    /** A deployer whose {@code https} connections verify hosts against the TLS settings' CA ({@code --tls-ca}). */
    public HttpArchiveDeployer(Duration timeout, Function<String, String> authorizations, TlsSettings tls) {
        this.http = tls.httpClient().connectTimeout(Duration.ofSeconds(5)).build();
        this.timeout = timeout;
        this.authorizations = authorizations;
    }

    @Override
    public void deploy(HostInfo host, String service, byte[] archive) throws IOException, InterruptedException {
        URI uri = URI.create(host.deployUrl() + (host.deployUrl().contains("?") ? "&" : "?") + "service="
                + URLEncoder.encode(service, StandardCharsets.UTF_8));
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(timeout)
                .header("Content-Type", "application/octet-stream")
                .POST(HttpRequest.BodyPublishers.ofByteArray(archive));
        String authorization = authorizations.apply(host.hostId());
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        HttpRequest req = b.build();
        HttpResponse<String> resp;
        CompletableFuture<HttpResponse<String>> call = http.sendAsync(req, upTo(MAX_ANSWER_BYTES));
        try {
            // the request timeout covers the answer's head only; this bounds its body too
            resp = call.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            call.cancel(true);
            throw new IOException("host " + host.hostId() + " did not answer the deployment of service '" + service + "' at "
                    + uri + " within " + timeout.toSeconds() + " s", e);
        } catch (ExecutionException e) {
            // e.g. a ConnectException without a message when the host stopped but is still registered
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new IOException("host " + host.hostId() + " did not take service '" + service + "' at " + uri + ": "
                    + DeploymentService.describe(cause), cause);
        }
        if (resp.statusCode() / 100 != 2) {
            throw new IOException("host " + host.hostId() + " refused service '" + service + "' at " + uri + ": HTTP "
                    + resp.statusCode() + " " + resp.body().strip());
        }
    }

    /** Longest part of an answer's body that is read (a broken or rogue host may answer with anything). */
    static final int MAX_ANSWER_BYTES = 512;

    /**
     * Reads at most {@code max} bytes of a body as text and then stops reading (the rest is never
     * buffered; the connection is dropped).
     */
    static HttpResponse.BodyHandler<String> upTo(int max) {
        return info -> new HttpResponse.BodySubscriber<>() {
            private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            private final CompletableFuture<String> text = new CompletableFuture<>();
            private Flow.Subscription subscription;

            @Override
            public void onSubscribe(Flow.Subscription s) {
                subscription = s;
                s.request(1);
            }

            @Override
            public void onNext(List<ByteBuffer> items) {
                for (ByteBuffer b : items) {
                    int n = Math.min(b.remaining(), max - bytes.size());
                    byte[] chunk = new byte[n];
                    b.get(chunk);
                    bytes.writeBytes(chunk);
                }
                if (bytes.size() >= max) {
                    subscription.cancel();
                    finish();
                } else {
                    subscription.request(1);
                }
            }

            @Override
            public void onError(Throwable t) {
                finish(); // what arrived before the error is still the host's answer
            }

            @Override
            public void onComplete() {
                finish();
            }

            private void finish() {
                text.complete(bytes.toString(StandardCharsets.UTF_8));
            }

            @Override
            public CompletionStage<String> getBody() {
                return text;
            }
        };
    }
}
