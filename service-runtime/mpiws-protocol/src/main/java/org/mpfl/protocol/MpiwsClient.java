package org.mpfl.protocol;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import javax.xml.stream.XMLStreamException;
import org.mpfl.protocol.tls.TlsSettings;

/**
 * The engine's client of the MPIWS control operations {@code run}, {@code status} and
 * {@code abort}: plain SOAP 1.2 envelopes over {@link java.net.http.HttpClient}, as any standard
 * SOAP client would send them from the WSDL. Thread-safe; every call is bounded by the timeout.
 */
public final class MpiwsClient implements AutoCloseable {
    private final HttpClient http;
    private final Duration timeout;

    public MpiwsClient(Duration timeout) {
        this(timeout, TlsSettings.NONE);
    }

    /** A client whose {@code https} calls verify hosts against the TLS settings' CA ({@code --tls-ca}). */
    public MpiwsClient(Duration timeout, TlsSettings tls) {
        this.timeout = timeout;
        this.http = tls.httpClient().version(HttpClient.Version.HTTP_1_1).connectTimeout(timeout).build();
    }

    public MpiwsClient() {
        this(Duration.ofSeconds(30));
    }

    /**
     * Starts one rank instance; returns once the host has created it (the rank runs on).
     *
     * @param serviceUrl the SOAP address of the rank's service ({@code Endpoint.soapUrl()})
     * @return the state the host reports ({@code pending} or {@code running})
     * @throws MpiwsCallException if the host answered a fault or could not be reached
     */
    public String run(String serviceUrl, RunRequest request) throws MpiwsCallException {
        return run(serviceUrl, request, null);
    }

    /**
     * As {@link #run(String, RunRequest)}, authenticated to the host.
     *
     * @param authorization the {@code Authorization} header value for this host
     *                      ({@link HostCredential#engineAuthorization}), or {@code null} for none (a host
     *                      without a credential accepts {@code run} from its own machine only)
     */
    public String run(String serviceUrl, RunRequest request, String authorization) throws MpiwsCallException {
        String answer = call(serviceUrl, MpiwsNames.OP_RUN, RunMessages.runXml(request), authorization);
        try {
            return RunMessages.parseStatusResponse(answer.replace("runResponse", "statusResponse")).state();
        } catch (XMLStreamException e) {
            throw new MpiwsCallException("bad run answer from " + serviceUrl + ": " + e.getMessage(), null);
        }
    }

    /**
     * State, progress and counters of one rank instance: what anyone who knows the domain ID may read (the
     * outputs and the failure message need {@link #status(String, String, int, byte[]) the proof}).
     */
    public RankStatus status(String serviceUrl, String domainId, int rank) throws MpiwsCallException {
        return status(serviceUrl, domainId, rank, null);
    }

    /**
     * State, progress, counters, outputs and failure of one rank instance.
     *
     * @param statusProof {@code new DomainToken(token).proveStatus(domainId, rank)}; without it ({@code null}),
     *                    or with a wrong one, the host leaves the outputs and the failure message out
     */
    public RankStatus status(String serviceUrl, String domainId, int rank, byte[] statusProof) throws MpiwsCallException {
        String answer = call(serviceUrl, MpiwsNames.OP_STATUS, RunMessages.statusXml(domainId, rank, statusProof));
        try {
            return RunMessages.parseStatusResponse(answer);
        } catch (XMLStreamException e) {
            throw new MpiwsCallException("bad status answer from " + serviceUrl + ": " + e.getMessage(), null);
        }
    }

    /**
     * Aborts a domain at one host (robust in-only: returns when the host accepted it).
     *
     * @param abortProof {@code new DomainToken(token).proveAbort(domainId)}
     */
    public void abort(String serviceUrl, String domainId, byte[] abortProof) throws MpiwsCallException {
        call(serviceUrl, MpiwsNames.OP_ABORT, "<m:abort xmlns:m=\"" + MpiwsNames.NS + "\"><m:domainId>"
                + Xml.escape(domainId) + "</m:domainId><m:proof>" + Base64.getEncoder().encodeToString(abortProof)
                + "</m:proof></m:abort>");
    }

    /** Fetches the WSDL of a service ({@code serviceUrl + "?wsdl"}). */
    public String wsdl(String serviceUrl) throws MpiwsCallException {
        HttpRequest req = HttpRequest.newBuilder(URI.create(serviceUrl + "?wsdl")).timeout(timeout).GET().build();
        try {
            HttpResponse<String> r = http.send(req, HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new MpiwsCallException("GET " + serviceUrl + "?wsdl answered HTTP " + r.statusCode(), null);
            }
            return r.body();
        } catch (IOException e) {
            throw new MpiwsCallException("cannot reach " + serviceUrl + ": " + e, null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MpiwsCallException("interrupted", null);
        }
    }

    /** POSTs one SOAP 1.2 request and returns the answer body (empty for a 202). */
    public String call(String serviceUrl, String operation, String bodyElement) throws MpiwsCallException {
        return call(serviceUrl, operation, bodyElement, null);
    }

    /** As {@link #call(String, String, String)} with an {@code Authorization} header ({@code null}: none). */
    public String call(String serviceUrl, String operation, String bodyElement, String authorization) throws MpiwsCallException {
        String envelope = MpiwsNames.envelope(bodyElement);
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(serviceUrl)).timeout(timeout)
                .header("Content-Type", "application/soap+xml; charset=UTF-8; action=\"" + MpiwsNames.action(operation) + "\"")
                .POST(HttpRequest.BodyPublishers.ofString(envelope, StandardCharsets.UTF_8));
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        HttpRequest req = b.build();
        HttpResponse<byte[]> r;
        try {
            r = http.send(req, HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            MpiwsCallException failure = new MpiwsCallException(operation + " at " + serviceUrl + " failed: " + e, null);
            failure.initCause(e);
            throw failure;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MpiwsCallException(operation + " at " + serviceUrl + " interrupted", null);
        }
        if (r.statusCode() / 100 != 2) {
            SoapFault f = SoapFault.fromHttp(r.statusCode(), r.headers().firstValue("Content-Type").orElse(null), r.body());
            throw new MpiwsCallException(operation + " at " + serviceUrl + " failed: " + f.reason(), f);
        }
        String contentType = r.headers().firstValue("Content-Type").orElse("");
        if (MediaType.parse(contentType).type().equals("multipart/related")) {
            return rootPart(contentType, r.body());
        }
        return new String(r.body(), StandardCharsets.UTF_8);
    }

    /** The SOAP envelope of an MTOM/XOP answer (what an MTOM-always server may send). */
    static String rootPart(String contentType, byte[] body) throws MpiwsCallException {
        try {
            return new String(SoapFault.rootPart(contentType, body), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new MpiwsCallException("bad MTOM answer: " + e.getMessage(), null);
        }
    }

    @Override
    public void close() {
        // java.net.http clients release their resources when unreachable (close() arrives in Java 21)
    }

    /** A control call failed: unreachable host, or a SOAP fault ({@link #fault()}). */
    public static final class MpiwsCallException extends Exception {
        private static final long serialVersionUID = 1L;
        private final transient SoapFault fault;

        public MpiwsCallException(String message, SoapFault fault) {
            super(message);
            this.fault = fault;
        }

        /** The SOAP fault the host answered, or {@code null} if none (transport failure). */
        public SoapFault fault() {
            return fault;
        }

        /** Whether the host never answered within the client's timeout (as opposed to refusing). */
        public boolean timedOut() {
            return getCause() instanceof java.net.http.HttpTimeoutException;
        }
    }
}
