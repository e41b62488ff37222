package org.mpfl.engine.deploy;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Function;
import org.mpfl.engine.registry.HostInfo;
import org.mpfl.protocol.tls.TlsSettings;

/**
 * Pushes an archive to a host with {@code POST <deployUrl>?service=NAME} (body: the archive bytes,
 * {@code application/octet-stream}); any 2xx answer means deployed. The host side is the service
 * host's deployment endpoint (see {@link HostInfo#deployUrl()}).
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
        try {
            resp = http.send(req, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            // e.g. a ConnectException without a message when the host stopped but is still registered
            throw new IOException("host " + host.hostId() + " did not take service '" + service + "' at " + uri + ": "
                    + DeploymentService.describe(e), e);
        }
        if (resp.statusCode() / 100 != 2) {
            throw new IOException("host " + host.hostId() + " refused service '" + service + "' at " + uri + ": HTTP "
                    + resp.statusCode() + " " + resp.body());
        }
    }
}
