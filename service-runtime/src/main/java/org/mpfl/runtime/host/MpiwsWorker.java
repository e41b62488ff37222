package org.mpfl.runtime.host;

import org.mpfl.runtime.settings.RuntimeSettings;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import org.apache.axis2.context.MessageContext;
import org.apache.axis2.transport.http.HTTPWorker;
import org.apache.axis2.transport.http.server.AxisHttpRequest;
import org.apache.axis2.transport.http.server.AxisHttpResponse;
import org.apache.axis2.transport.http.server.Worker;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpException;
import org.mpfl.protocol.MediaType;
import org.mpfl.protocol.MpiwsNames;
import org.mpfl.protocol.MpiwsWsdl;
import org.mpfl.protocol.SoapFault;
import org.mpfl.runtime.transport.Inbox;
import org.mpfl.runtime.transport.soap.StoreBatchResponse;
import org.mpfl.runtime.transport.soap.StoreMessageReader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The request worker of the host's Axis2 {@code SimpleHTTPServer}. Two things are handled here,
 * everything else goes to Axis2's own {@link HTTPWorker} (and from there through the handler chain
 * to the MPIWS message receivers):
 * <ul>
 * <li>{@code store}/{@code bstore} requests (recognised by their SOAP 1.2 action) take the lean
 *     path: the MTOM package is parsed without an object model and the attachment read straight into
 *     the payload array, then handed to the {@link Inbox}; the answer is the robust in-only one —
 *     202, or a SOAP 1.2 fault. This is where the speed of the SOAP transport comes from; the wire
 *     format is unchanged. A request without the action still works, through Axis2.</li>
 * <li>{@code GET …/services/Type?wsdl} for an MPIWS service type answers the MPIWS WSDL.</li>
 * </ul>
 * The system property {@code mpfl.soap.leanStore=false} sends stores through Axis2 too (to measure
 * the difference).
 */
final class MpiwsWorker implements Worker {
    private static final Logger LOG = LoggerFactory.getLogger(MpiwsWorker.class);
    private static final boolean LEAN_STORE = RuntimeSettings.SOAP_LEAN_STORE.get();
    private static final long UNPROVEN_BODY_BYTES = RuntimeSettings.HOST_UNPROVEN_BODY_BYTES.get();

    private final ServiceHost host;
    private final HTTPWorker axis2 = new HTTPWorker();

    MpiwsWorker(ServiceHost host) {
        this.host = host;
    }

    @Override
    public void service(AxisHttpRequest request, AxisHttpResponse response, MessageContext msgContext)
            throws HttpException, IOException {
        String method = request.getMethod();
        // the receivers of run (and extensions) check it; Axis2's simple server passes no headers on
        Header authorization = request.getFirstHeader("Authorization");
        msgContext.setProperty(ServiceHost.AUTHORIZATION_PROPERTY, authorization == null ? null : authorization.getValue());
        // the engine's key, or (a host without an engine) this machine: what may make the host act
        boolean engine = host.acceptsEngineCall(authorization == null ? null : authorization.getValue(),
                msgContext.getProperty(MessageContext.REMOTE_ADDR));
        if (engine && authorization != null) {
            // the engine's key: its connection leaves the strangers' limits (ConnectionGuard)
            GuardedConnection.proveCurrent();
        }
        if ("POST".equals(method) && request.getRequestURI().startsWith(ServiceHost.DEPLOY_PATH)) {
            deploy(request, response, msgContext);
            return;
        }
        if (LEAN_STORE && "POST".equals(method)) {
            String contentType = request.getContentType();
            MediaType mt = MediaType.parse(contentType);
            String op = MpiwsNames.operationOfAction(mt.soapAction());
            if (MpiwsNames.OP_STORE.equals(op) || MpiwsNames.OP_BSTORE.equals(op)) {
                store(request, response, contentType);
                return;
            }
            if (MpiwsNames.OP_STORE_BATCH.equals(op)) {
                storeBatch(request, response, contentType);
                return;
            }
        } else if ("GET".equals(method)) {
            String uri = request.getRequestURI();
            int q = uri.indexOf('?');
            if (q > 0 && uri.substring(q + 1).equalsIgnoreCase("wsdl")) {
                String path = uri.substring(0, q);
                int slash = path.lastIndexOf('/');
                String type = path.substring(slash + 1);
                if (path.startsWith(MpiwsNames.SERVICES_PATH) && host.hasServiceType(type)) {
                    byte[] wsdl = MpiwsWsdl.of(type, "MPFL service host " + host.hostId(), host.serviceUrl(type)).getBytes(StandardCharsets.UTF_8);
                    response.setStatus(200);
                    response.setContentType("text/xml; charset=UTF-8");
                    OutputStream out = response.getOutputStream();
                    out.write(wsdl);
                    out.close();
                    return;
                }
            }
        }
        if (!engine) {
            // Axis2's object model holds what it reads (status and abort serialise their whole request, a store's fields
            // are read before its header is admitted): a caller without a credential gets only so much read
            GuardedConnection.boundCurrentBody(UNPROVEN_BODY_BYTES);
        }
        axis2.service(request, response, msgContext);
    }

    /** {@code POST …/mpfl-deploy?service=NAME}: the engine deploys a service archive. */
    private void deploy(AxisHttpRequest request, AxisHttpResponse response, MessageContext mc) throws IOException {
        String uri = request.getRequestURI();
        String name = null;
        int q = uri.indexOf('?');
        if (q > 0) {
            for (String kv : uri.substring(q + 1).split("&")) {
                if (kv.startsWith("service=")) {
                    name = java.net.URLDecoder.decode(kv.substring(8), StandardCharsets.UTF_8);
                }
            }
        }
        Object auth = mc.getProperty(ServiceHost.AUTHORIZATION_PROPERTY);
        ServiceHost.DeployAnswer answer = host.handleDeploy(name, auth == null ? null : auth.toString(),
                mc.getProperty(MessageContext.REMOTE_ADDR), request.getInputStream());
        int status = answer.status();
        byte[] text = answer.text().getBytes(StandardCharsets.UTF_8);
        if (status != 201) {
            // a refusal may leave the body unread (a caller without the key: not a byte of it is read); a
            // connection kept open would have its next request swallowed with that body's tail (Axis2's
            // connection clears its read buffer at each request head): the connection ends with the answer
            answerAndClose(request, status, "text/plain; charset=UTF-8", text);
            return;
        }
        response.setStatus(status);
        response.setContentType("text/plain; charset=UTF-8");
        OutputStream out = response.getOutputStream();
        out.write(text);
        out.close();
    }

    private void store(AxisHttpRequest request, AxisHttpResponse response, String contentType) throws IOException {
        long length = -1;
        Header h = request.getFirstHeader("Content-Length");
        if (h != null) {
            try {
                length = Long.parseLong(h.getValue().trim());
            } catch (NumberFormatException ignored) {
                // unknown length: parts are bounded by the stream
            }
        }
        Inbox inbox = host.inbox();
        long limit = inbox.maxMessageBytes();
        // what the gate decided: the admission (with its budget reservation) or a refusal
        Inbox.Admission[] admitted = new Inbox.Admission[1];
        SoapFault[] refused = new SoapFault[1];
        boolean[] proven = new boolean[1];
        StoreMessageReader.Gate gate = (op, header, maxPayload) -> {
            if (maxPayload > limit && maxPayload != Long.MAX_VALUE) {
                refused[0] = new SoapFault("Sender", SoapFault.REJECTED, "message of " + maxPayload
                        + " bytes exceeds this host's per-message limit of " + limit + " bytes");
                return -1;
            }
            long bound = Math.min(maxPayload, limit);
            // a length known from neither m:length nor Content-Length (a chunked body from another client):
            // nothing to reserve up front; the sender is admitted by its proof, reading is bounded by the
            // limit, and the buffer bound charges the real size when the message is stored
            Inbox.Admission a = inbox.admit(header, maxPayload == Long.MAX_VALUE ? 0 : bound);
            admitted[0] = a;
            proven[0] = a.proven();
            if (a.proven()) {
                GuardedConnection.proveCurrent();
            }
            if (a.outcome() != Inbox.Outcome.STORED) {
                refused[0] = StoreOutcomes.toFault(a.outcome(), header);
                return -1;
            }
            return bound;
        };
        SoapFault fault;
        InputStream body = request.getInputStream();
        try {
            StoreMessageReader.StoreRequest sr = StoreMessageReader.read(contentType, body, length, gate);
            Inbox.Admission a = admitted[0];
            fault = StoreOutcomes.toFault(inbox.store(sr.envelope(), a == null ? null : a.reservation()), sr.envelope());
        } catch (StoreMessageReader.RefusedStoreException e) {
            fault = refused[0];
            if (fault == null) {
                // a DUPLICATE needs no fault: the robust in-only answer is 202
                if (!drain(body, proven[0] ? Long.MAX_VALUE : UNPROVEN_DRAIN_BYTES)) {
                    answerAndClose(request, 202, (SoapFault) null);
                    return;
                }
                response.setStatus(202);
                return;
            }
            // a sender who proved the domain token keeps its connection: its body is drained (read and
            // dropped, nothing allocated); a stranger's is not read further and the connection closes
            if (!drain(body, proven[0] ? Long.MAX_VALUE : UNPROVEN_DRAIN_BYTES)) {
                answerAndClose(request, fault.httpStatus(), fault);
                return;
            }
        } catch (StoreMessageReader.MalformedStoreException e) {
            fault = new SoapFault("Sender", SoapFault.MALFORMED, e.getMessage());
            if (admitted[0] == null || !admitted[0].proven()) {
                answerAndClose(request, fault.httpStatus(), fault);
                return;
            }
        } catch (IOException e) {
            throw e;
        } catch (RuntimeException e) {
            LOG.warn("store failed", e);
            fault = new SoapFault("Receiver", SoapFault.FAILED, String.valueOf(e));
        } finally {
            if (admitted[0] != null) {
                admitted[0].release();
            }
        }
        if (fault == null) {
            response.setStatus(202);
            return;
        }
        byte[] bytes = fault.toXml().getBytes(StandardCharsets.UTF_8);
        response.setStatus(fault.httpStatus());
        response.setContentType("application/soap+xml; charset=UTF-8");
        OutputStream out = response.getOutputStream();
        out.write(bytes);
        out.close();
    }

    /**
     * A {@code storeBatch}: every entry is admitted from its header exactly like a single store
     * (per-message limit, domain, proof, bound, budget) before its attachment is read, stored on
     * its own, and answered on its own in one {@code storeBatchResponse} (200). A refusal of a
     * sender that proved the token is recorded and its attachment passed over unread into memory;
     * any other refusal (a stranger, or a length over the limit) or a malformed entry ends the
     * reading there: the answer lists what was done up to it and the connection is closed, so
     * the rest of the body is never read.
     */
    private void storeBatch(AxisHttpRequest request, AxisHttpResponse response, String contentType) throws IOException {
        long length = contentLength(request);
        Inbox inbox = host.inbox();
        long limit = inbox.maxMessageBytes();
        java.util.List<SoapFault> outcomes = new java.util.ArrayList<>();
        boolean[] proven = new boolean[1];
        Inbox.Admission[] admitted = new Inbox.Admission[1];
        StoreMessageReader.BatchHandler handler = new StoreMessageReader.BatchHandler() {
            @Override
            public long admit(int index, String operation, org.mpfl.runtime.transport.Envelope header, long maxPayload) {
                proven[0] = false;
                if (maxPayload > limit && maxPayload != Long.MAX_VALUE) {
                    outcomes.add(new SoapFault("Sender", SoapFault.REJECTED, "message of " + maxPayload
                            + " bytes exceeds this host's per-message limit of " + limit + " bytes"));
                    return -1;
                }
                long bound = Math.min(maxPayload, limit);
                Inbox.Admission a = inbox.admit(header, maxPayload == Long.MAX_VALUE ? 0 : bound);
                proven[0] = a.proven();
                if (a.proven()) {
                    GuardedConnection.proveCurrent();
                }
                if (a.outcome() != Inbox.Outcome.STORED) {
                    a.release();
                    outcomes.add(StoreOutcomes.toFault(a.outcome(), header));
                    return -1;
                }
                admitted[0] = a;
                return bound;
            }

            @Override
            public boolean passOverRefused(int index) {
                return proven[0];
            }

            @Override
            public void accept(int index, StoreMessageReader.StoreRequest sr) {
                Inbox.Admission a = admitted[0];
                admitted[0] = null;
                try {
                    outcomes.add(StoreOutcomes.toFault(inbox.store(sr.envelope(), a == null ? null : a.reservation()), sr.envelope()));
                } catch (RuntimeException e) {
                    LOG.warn("store failed", e);
                    outcomes.add(new SoapFault("Receiver", SoapFault.FAILED, String.valueOf(e)));
                } finally {
                    if (a != null) {
                        a.release();
                    }
                }
            }
        };
        InputStream body = request.getInputStream();
        StoreMessageReader.BatchResult result;
        try {
            result = StoreMessageReader.readBatch(contentType, body, length, handler);
        } catch (StoreMessageReader.MalformedStoreException e) {
            outcomes.add(new SoapFault("Sender", SoapFault.MALFORMED, e.getMessage()));
            answerAndClose(request, 200, StoreBatchResponse.toBytes(outcomes, -1));
            return;
        } finally {
            if (admitted[0] != null) {
                admitted[0].release(); // admitted, then the body broke off before it was read
            }
        }
        byte[] answer = StoreBatchResponse.toBytes(outcomes, result.entries());
        if (result.processed() < result.entries()) {
            answerAndClose(request, 200, answer);
            return;
        }
        response.setStatus(200);
        response.setContentType("application/soap+xml; charset=UTF-8");
        OutputStream out = response.getOutputStream();
        out.write(answer);
        out.close();
    }

    private static long contentLength(AxisHttpRequest request) {
        Header h = request.getFirstHeader("Content-Length");
        if (h != null) {
            try {
                return Long.parseLong(h.getValue().trim());
            } catch (NumberFormatException ignored) {
                // unknown length: parts are bounded by the stream
            }
        }
        return -1;
    }

    /** How much of a refused stranger's body is read and dropped so that a small one keeps its connection. */
    private static final long UNPROVEN_DRAIN_BYTES = 64 * 1024;

    /** Reads and drops the rest of a body, at most {@code max} bytes; whether it ended within that. */
    private static boolean drain(InputStream body, long max) {
        byte[] sink = new byte[8192];
        long total = 0;
        try {
            while (total <= max) {
                int n = body.read(sink);
                if (n < 0) {
                    return true;
                }
                total += n;
            }
        } catch (IOException e) {
            return false;
        }
        return false;
    }

    private static String reason(int status) {
        return switch (status) {
            case 200 -> "OK";
            case 202 -> "Accepted";
            case 400 -> "Bad Request";
            case 403 -> "Forbidden";
            default -> "Internal Server Error";
        };
    }

    /**
     * Answers on the socket itself and closes the connection, leaving the rest of the body unread:
     * Axis2 would drain a body before it sends the answer (a 2 GB announcement would hold the thread
     * until its socket timeout). The answer goes out first and the output is shut before closing, so
     * a client that reads while it writes sees it.
     */
    private static void answerAndClose(AxisHttpRequest request, int status, SoapFault fault) {
        answerAndClose(request, status, fault == null ? new byte[0] : fault.toXml().getBytes(StandardCharsets.UTF_8));
    }

    /** {@link #answerAndClose(AxisHttpRequest, int, SoapFault)} with any SOAP body (a batch's answer). */
    private static void answerAndClose(AxisHttpRequest request, int status, byte[] body) {
        answerAndClose(request, status, "application/soap+xml; charset=UTF-8", body);
    }

    /** {@link #answerAndClose(AxisHttpRequest, int, SoapFault)} with any body of the given content type. */
    private static void answerAndClose(AxisHttpRequest request, int status, String contentType, byte[] body) {
        java.net.Socket socket = request.getSocketHolder() == null ? null : request.getSocketHolder().getSocket();
        if (socket == null) {
            return;
        }
        try {
            String head = "HTTP/1.1 " + status + " " + reason(status)
                    + "\r\nContent-Type: " + contentType + "\r\nContent-Length: " + body.length
                    + "\r\nConnection: close\r\n\r\n";
            OutputStream out = socket.getOutputStream();
            out.write(head.getBytes(StandardCharsets.US_ASCII));
            out.write(body);
            out.flush();
            socket.shutdownOutput();
        } catch (IOException e) {
            LOG.debug("could not answer a refused request", e);
        } finally {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closed anyway
            }
        }
    }
}
