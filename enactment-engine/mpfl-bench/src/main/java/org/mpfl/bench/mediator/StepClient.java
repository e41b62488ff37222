package org.mpfl.bench.mediator;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.mpfl.protocol.SoapFault;
import org.mpfl.runtime.transport.ObjectTypes;

/**
 * The mediator's client of the {@code step} operation: one SOAP 1.2/MTOM request-response per call
 * over persistent HTTP/1.1 connections ({@link HttpClient}), every call bounded by the timeout.
 * Thread-safe: the mediator calls the ranks of an iteration in parallel.
 */
public final class StepClient {
    private final HttpClient http;
    private final Duration timeout;
    private final Function<String, String> authorizations;

    /**
     * @param authorizations the {@code Authorization} header for a step-service URL (the engine's key for
     *                       that host), or {@code null} from it for none
     */
    public StepClient(Duration timeout, Function<String, String> authorizations) {
        this.timeout = timeout;
        this.authorizations = authorizations;
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(timeout).build();
    }

    /**
     * Runs one step at a host and returns the activity's outputs.
     *
     * @param serviceUrl the step service of the host ({@link StepWire#serviceUrl})
     * @throws IOException a fault answered by the host (the activity failed), an unreachable host, or the timeout
     */
    public Map<String, Object> step(String serviceUrl, StepWire.StepRequest request) throws IOException, InterruptedException {
        return step(serviceUrl, request, StepWire.request(request));
    }

    /** As {@link #step(String, StepWire.StepRequest)}, with the request already encoded ({@link StepWire#request}). */
    public Map<String, Object> step(String serviceUrl, StepWire.StepRequest request, StepWire.Body body)
            throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(serviceUrl)).timeout(timeout)
                .header("Content-Type", body.contentType())
                .POST(HttpRequest.BodyPublishers.ofByteArrays(body.parts()));
        String authorization = authorizations.apply(serviceUrl);
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        HttpRequest req = b.build();
        HttpResponse<byte[]> r = http.send(req, HttpResponse.BodyHandlers.ofByteArray());
        String contentType = r.headers().firstValue("Content-Type").orElse("application/soap+xml");
        if (r.statusCode() / 100 != 2) {
            String reason;
            try {
                // faults may come as MTOM packages too (the host's MTOM setting): the envelope is the root part
                reason = SoapFault.parse(StepWire.envelope(contentType, r.body())).reason();
            } catch (IOException | RuntimeException e) {
                reason = new String(r.body(), 0, Math.min(r.body().length, 500), StandardCharsets.UTF_8);
            }
            throw new IOException("step " + request.activity() + " as rank " + request.rank() + " at " + serviceUrl
                    + " failed (HTTP " + r.statusCode() + "): " + reason);
        }
        // object outputs are read with the allow-list of the activity's workflow, as a rank would read them
        return StepWire.values(contentType, r.body(),
                ObjectTypes.forWorkflow(StepClient.class.getClassLoader(), List.of(request.activity())));
    }
}
