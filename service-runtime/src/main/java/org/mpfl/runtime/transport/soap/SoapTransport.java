package org.mpfl.runtime.transport.soap;

import org.mpfl.runtime.settings.RuntimeSettings;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.mpfl.protocol.Endpoint;
import org.mpfl.protocol.MpiwsNames;
import org.mpfl.protocol.SoapFault;
import org.mpfl.protocol.Xml;
import org.mpfl.protocol.tls.TlsSettings;
import org.mpfl.runtime.transport.Envelope;
import org.mpfl.runtime.transport.ReceiverBusyException;
import org.mpfl.runtime.transport.Transport;
import org.mpfl.runtime.transport.TransportException;

/**
 * The interoperable default transport: every store is a SOAP 1.2 call of the receiving rank's MPIWS
 * service ({@code store}, or {@code bstore} for {@link Envelope.Kind#BSTORE}) with the payload as an
 * MTOM attachment, sent on a persistent HTTP/1.1 connection. The call is robust in-only: an empty
 * 202 answer confirms that the receiver stored the message, a SOAP fault reports rejection
 * ({@code m:Rejected}, final) or back-pressure ({@code m:Busy}, retry later).
 *
 * <p>Thread-safe; one instance per JVM is enough (connections are pooled per host and port).
 */
public final class SoapTransport implements Transport {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(SoapTransport.class);
    /** Connect time limit. */
    public static final int CONNECT_TIMEOUT_MS = 5_000;
    /** Socket read limit for one answer; a store is answered as soon as it is buffered. */
    public static final int READ_TIMEOUT_MS = 60_000;
    /** Idle connections older than this are not reused (below the server's keep-alive time). */
    private static final long MAX_IDLE_MS = 10_000;

    /**
     * A batch's HTTP request carries about this many payload bytes at most
     * ({@code mpfl.soap.batchBytes}, default 1 MiB): larger batches are split, and an envelope
     * larger than it goes alone as a single {@code store}.
     */
    static final long BATCH_BYTES = RuntimeSettings.SOAP_BATCH_BYTES.get();
    /** At most this many envelopes per batch request ({@code mpfl.soap.batchMax}, default 64; 1 turns batching off). */
    static final int BATCH_MAX = Math.max(1, Math.min(StoreMessageReader.MAX_BATCH_ENTRIES, RuntimeSettings.SOAP_BATCH_MAX.get()));

    private final HttpConnectionPool pool;
    /** Service URLs whose server did not understand {@code storeBatch}: single stores only. */
    private final java.util.Set<String> noBatch = ConcurrentHashMap.newKeySet();
    /** {@code storeBatch} requests sent (tests check the splitting). */
    private final java.util.concurrent.atomic.AtomicLong batchRequests = new java.util.concurrent.atomic.AtomicLong();
    private final Map<String, Target> targets = new ConcurrentHashMap<>();
    /** {@code https} when TLS is on, else {@code http}: the only scheme this transport sends to. */
    private final String scheme;

    /** A plaintext transport ({@code http://} peers only). */
    public SoapTransport() {
        this(TlsSettings.NONE);
    }

    /**
     * A transport for a host with these TLS settings: with TLS on it speaks only {@code https} and
     * only to peers whose certificate the settings' CA ({@code --tls-ca}) signed for the address in
     * their URL — never plaintext, so a peer advertising {@code http://} is unreachable, not a leak.
     */
    public SoapTransport(TlsSettings tls) {
        this.scheme = tls.enabled() ? "https" : "http";
        this.pool = new HttpConnectionPool(CONNECT_TIMEOUT_MS, READ_TIMEOUT_MS, MAX_IDLE_MS, tls.enabled() ? tls : null);
    }

    /** Host, port and path of a service URL, parsed once. */
    record Target(String host, int port, String path, String hostHeader) {
        static Target of(String url, String scheme) {
            URI u = URI.create(url);
            if (!scheme.equalsIgnoreCase(u.getScheme())) {
                throw new IllegalArgumentException("this host's SOAP transport speaks " + scheme + " only"
                        + (scheme.equals("https") ? " (TLS is on)" : " (TLS is off: start it with --tls-ca to reach https peers)"));
            }
            int port = u.getPort() < 0 ? (scheme.equals("https") ? 443 : 80) : u.getPort();
            String path = u.getRawPath() == null || u.getRawPath().isEmpty() ? "/" : u.getRawPath();
            if (u.getRawQuery() != null) {
                path += "?" + u.getRawQuery();
            }
            return new Target(u.getHost(), port, path, u.getHost() + ":" + port);
        }
    }

    @Override
    public String name() {
        return "soap";
    }

    @Override
    public boolean reaches(Endpoint endpoint) {
        return endpoint != null && endpoint.soapUrl() != null && endpoint.soapUrl().startsWith(scheme + "://");
    }

    @Override
    public void store(Endpoint endpoint, Envelope envelope) throws TransportException {
        Target t = target(endpoint);
        String op = envelope.kind() == Envelope.Kind.BSTORE ? MpiwsNames.OP_BSTORE : MpiwsNames.OP_STORE;
        HttpConnection.Response r = exchange(t, c -> StoreMessageWriter.write(c, t.path(), t.hostHeader(), op, envelope));
        if (r.status() == 202 || r.status() == 200 || r.status() == 204) {
            return;
        }
        throw faultToException(op, endpoint, r);
    }

    /** How many {@code storeBatch} requests this transport has sent (answered or not). */
    public long batchRequestsSent() {
        return batchRequests.get();
    }

    @Override
    public boolean batchesStores() {
        return BATCH_MAX > 1;
    }

    /**
     * Several envelopes in as few HTTP requests as the size limits allow: consecutive envelopes go
     * as one {@code storeBatch} MTOM package of at most {@link #BATCH_MAX} envelopes and about
     * {@link #BATCH_BYTES} payload bytes (one larger than that goes alone as a plain {@code store}).
     * Each envelope is answered on its own; a transport failure fails the rest (as in the default).
     * A server that does not understand {@code storeBatch} gets single stores from then on (a
     * resent envelope that it had stored after all is dropped there as a duplicate).
     */
    @Override
    public TransportException[] storeAll(Endpoint endpoint, java.util.List<Envelope> envelopes) {
        int n = envelopes.size();
        TransportException[] out = new TransportException[n];
        Target t;
        try {
            t = target(endpoint);
        } catch (TransportException e) {
            java.util.Arrays.fill(out, e);
            return out;
        }
        int i = 0;
        while (i < n) {
            int j = i;
            long bytes = 0;
            while (j < n && j - i < BATCH_MAX) {
                Envelope e = envelopes.get(j);
                long len = e.payload() == null ? 0 : e.payload().encodedLength();
                if (j > i && bytes + len > BATCH_BYTES) {
                    break;
                }
                bytes += len;
                j++;
            }
            boolean goOn = j - i == 1 || noBatch.contains(endpoint.soapUrl())
                    ? storeEach(endpoint, envelopes, i, j, out)
                    : storeBatch(endpoint, t, envelopes, i, j, out);
            if (!goOn) {
                for (int k = j; k < n; k++) {
                    if (out[k] == null) {
                        out[k] = out[j - 1] != null ? out[j - 1] : new TransportException("not sent after an earlier failure", false, null);
                    }
                }
                return out;
            }
            i = j;
        }
        return out;
    }

    /** Single stores of {@code envelopes[from, to)}; false after a failure that is not BUSY (the rest is filled). */
    private boolean storeEach(Endpoint endpoint, java.util.List<Envelope> envelopes, int from, int to, TransportException[] out) {
        for (int k = from; k < to; k++) {
            try {
                store(endpoint, envelopes.get(k));
            } catch (ReceiverBusyException busy) {
                out[k] = busy;
            } catch (TransportException ex) {
                java.util.Arrays.fill(out, k, to, ex);
                return false;
            }
        }
        return true;
    }

    /** One {@code storeBatch} of {@code envelopes[from, to)}; false after a transport failure (the rest is filled). */
    private boolean storeBatch(Endpoint endpoint, Target t, java.util.List<Envelope> envelopes, int from, int to,
                               TransportException[] out) {
        java.util.List<Envelope> chunk = envelopes.subList(from, to);
        HttpConnection.Response r;
        try {
            r = exchange(t, c -> StoreMessageWriter.writeBatch(c, t.path(), t.hostHeader(), chunk));
            batchRequests.incrementAndGet();
            if (LOG.isDebugEnabled()) {
                LOG.debug("storeBatch of {} envelopes to {}: HTTP {}", chunk.size(), t.hostHeader(), r.status());
            }
        } catch (TransportException ex) {
            java.util.Arrays.fill(out, from, to, ex);
            return false;
        }
        java.util.List<SoapFault> outcomes = r.status() == 200 ? StoreBatchResponse.parse(r.body()) : null;
        if (outcomes == null) {
            // not an MPFL host of this version (or its lean path is off): single stores from now on
            noBatch.add(endpoint.soapUrl());
            return storeEach(endpoint, envelopes, from, to, out);
        }
        for (int k = 0; k < chunk.size(); k++) {
            if (k >= outcomes.size()) {
                // the receiver stopped reading before this one: not stored, resent by the lane
                java.util.Arrays.fill(out, from + k, to, new TransportException(MpiwsNames.OP_STORE_BATCH + " at "
                        + endpoint.soapUrl() + ": envelope " + k + " of " + chunk.size() + " was not processed", false, null));
                return false;
            }
            SoapFault f = outcomes.get(k);
            if (f != null) {
                out[from + k] = faultToException(StoreMessageWriter.operationOf(chunk.get(k)), endpoint, f, f.httpStatus());
            }
        }
        return true;
    }

    @Override
    public void abort(Endpoint endpoint, String domainId, byte[] proof) throws TransportException {
        Target t = target(endpoint);
        String body = MpiwsNames.envelope("<m:abort xmlns:m=\"" + MpiwsNames.NS + "\"><m:domainId>" + Xml.escape(domainId)
                + "</m:domainId><m:proof>" + Base64.getEncoder().encodeToString(proof == null ? new byte[0] : proof)
                + "</m:proof></m:abort>");
        HttpConnection.Response r = post(t, MpiwsNames.OP_ABORT, body);
        if (r.status() / 100 != 2) {
            throw faultToException(MpiwsNames.OP_ABORT, endpoint, r);
        }
    }

    /** Posts a plain SOAP 1.2 envelope (no attachments) and returns the answer. */
    HttpConnection.Response post(Target t, String operation, String envelopeXml) throws TransportException {
        byte[] bytes = envelopeXml.getBytes(StandardCharsets.UTF_8);
        String action = MpiwsNames.action(operation);
        return exchange(t, c -> {
            c.writeAscii("POST " + t.path() + " HTTP/1.1\r\nHost: " + t.hostHeader()
                    + "\r\nContent-Type: application/soap+xml; charset=UTF-8; action=\"" + action
                    + "\"\r\nUser-Agent: mpfl-mpiws\r\nContent-Length: " + bytes.length + "\r\n\r\n");
            c.write(bytes);
            c.flush();
        });
    }

    private interface RequestWriter {
        void write(HttpConnection c) throws IOException;
    }

    /**
     * One request/answer on a pooled connection. A pooled connection the server already closed
     * yields no answer at all; the request was then not processed and is sent once more on a
     * fresh connection (a duplicate would be dropped by its sequence number anyway).
     */
    private HttpConnection.Response exchange(Target t, RequestWriter w) throws TransportException {
        for (int attempt = 0; ; attempt++) {
            HttpConnection c = null;
            try {
                c = attempt == 0 ? pool.acquire(t.host(), t.port()) : pool.open(t.host(), t.port());
                w.write(c);
                HttpConnection.Response r = c.readResponse();
                pool.release(c);
                return r;
            } catch (IOException e) {
                if (c != null) {
                    c.close();
                }
                boolean stale = e instanceof HttpConnection.NoResponseException
                        || (e instanceof java.net.SocketException && attempt == 0);
                if (attempt == 0 && stale) {
                    continue;
                }
                throw new TransportException("SOAP call to " + t.hostHeader() + t.path() + " failed: " + e, false, e);
            }
        }
    }

    private static TransportException faultToException(String op, Endpoint endpoint, HttpConnection.Response r) {
        return faultToException(op, endpoint, SoapFault.fromHttp(r.status(), r.contentType(), r.body()), r.status());
    }

    private static TransportException faultToException(String op, Endpoint endpoint, SoapFault f, int status) {
        if (SoapFault.BUSY.equals(f.subcode())) {
            // flow control, not a failure: the sender backs off briefly without a delivery deadline
            return new ReceiverBusyException(op + " at " + endpoint.soapUrl() + ": " + f.reason());
        }
        boolean retry = SoapFault.BUSY.equals(f.subcode()) || (f.subcode() == null && status >= 500);
        return new TransportException(op + " at " + endpoint.soapUrl() + " answered "
                + (f.subcode() == null ? f.code() : f.subcode()) + ": " + f.reason(), !retry, null);
    }

    private Target target(Endpoint endpoint) throws TransportException {
        if (endpoint == null || endpoint.soapUrl() == null) {
            throw new TransportException("no SOAP address for " + endpoint, true, null);
        }
        try {
            return targets.computeIfAbsent(endpoint.soapUrl(), url -> Target.of(url, scheme));
        } catch (IllegalArgumentException e) {
            throw new TransportException("bad SOAP address " + endpoint.soapUrl() + ": " + e.getMessage(), true, e);
        }
    }

    @Override
    public void close() {
        pool.close();
    }
}
