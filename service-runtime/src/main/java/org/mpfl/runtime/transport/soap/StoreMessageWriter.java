package org.mpfl.runtime.transport.soap;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.mpfl.protocol.MpiwsNames;
import org.mpfl.protocol.Xml;
import org.mpfl.runtime.transport.Envelope;
import org.mpfl.runtime.transport.Payload;

/**
 * Writes one MPIWS {@code store}/{@code bstore} call as a SOAP 1.2 MTOM message (XOP package in a
 * {@code multipart/related} body, W3C MTOM 1.0): the root part is the SOAP envelope with the
 * {@link Envelope} header fields as elements, and the payload is a binary MIME part referenced from
 * {@code m:payload} by {@code xop:Include}. What goes over the wire is exactly what a standard
 * MTOM-enabled SOAP stack would produce for the WSDL's {@code store} operation.
 *
 * <p>The payload's raw bytes go straight from the sender's array into the connection's write buffer
 * (no full-size byte[] copy); {@code m:length} carries their count so that the receiver can read
 * them straight into a right-sized array.
 */
final class StoreMessageWriter {
    /** A process-wide random prefix plus a counter: a boundary no payload can plausibly contain. */
    private static final String BOUNDARY_PREFIX = "MIMEBoundary_mpfl_"
            + Long.toHexString(ThreadLocalRandom.current().nextLong()) + Long.toHexString(ThreadLocalRandom.current().nextLong()) + "_";
    private static final AtomicLong BOUNDARY_COUNTER = new AtomicLong();
    static final String ROOT_CID = "root.0@mpfl";
    static final String PAYLOAD_CID = "payload.1@mpfl";

    private StoreMessageWriter() {
    }

    /** Writes the HTTP request (headers and body) to the connection's buffer and flushes it. */
    static void write(HttpConnection c, String path, String hostHeader, String operation, Envelope e) throws IOException {
        String boundary = BOUNDARY_PREFIX + Long.toHexString(BOUNDARY_COUNTER.incrementAndGet());
        String action = MpiwsNames.action(operation);
        Payload p = e.payload() == null ? Payload.of(null) : e.payload();
        byte[] encodedNonArray = null;
        long payloadLength;
        switch (p.type()) {
            case DOUBLE_ARRAY -> payloadLength = 8L * ((double[]) p.value()).length;
            case LONG_ARRAY -> payloadLength = 8L * ((long[]) p.value()).length;
            case INT_ARRAY -> payloadLength = 4L * ((int[]) p.value()).length;
            default -> {
                encodedNonArray = p.encode();
                payloadLength = encodedNonArray.length;
            }
        }
        byte[] head = head(boundary, action, operation, e, p.type(), payloadLength);
        byte[] tail = ("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.US_ASCII);
        long contentLength = head.length + payloadLength + tail.length;

        c.writeAscii("POST " + path + " HTTP/1.1\r\nHost: " + hostHeader
                + "\r\nContent-Type: multipart/related; boundary=\"" + boundary
                + "\"; type=\"application/xop+xml\"; start=\"<" + ROOT_CID
                + ">\"; start-info=\"application/soap+xml\"; action=\"" + action
                + "\"\r\nMIME-Version: 1.0\r\nUser-Agent: mpfl-mpiws\r\nContent-Length: " + contentLength + "\r\n\r\n");
        c.write(head);
        writePayload(c, p, encodedNonArray);
        c.write(tail);
        c.flush();
    }

    /** The root part's delimiter and headers, then the envelope up to the opening of the {@code operation} element. */
    private static void openRootPart(StringBuilder sb, String boundary, String action, String operation) {
        sb.append("--").append(boundary).append("\r\n")
          .append("Content-Type: application/xop+xml; charset=UTF-8; type=\"application/soap+xml; action=\\\"")
          .append(action).append("\\\"\"\r\n")
          .append("Content-Transfer-Encoding: binary\r\n")
          .append("Content-ID: <").append(ROOT_CID).append(">\r\n\r\n");
        sb.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>")
          .append("<s:Envelope xmlns:s=\"").append(MpiwsNames.SOAP12_NS).append("\"><s:Body>")
          .append("<m:").append(operation).append(" xmlns:m=\"").append(MpiwsNames.NS).append("\">");
    }

    /** Everything of the body before the payload bytes: root part, its delimiter, the attachment's headers. */
    static byte[] head(String boundary, String action, String operation, Envelope e, Payload.Type type, long payloadLength) {
        StringBuilder sb = new StringBuilder(1024);
        openRootPart(sb, boundary, action, operation);
        fields(sb, e, type, payloadLength, PAYLOAD_CID);
        sb.append("</m:").append(operation).append("></s:Body></s:Envelope>\r\n")
          .append("--").append(boundary).append("\r\n")
          .append("Content-Type: application/octet-stream\r\n")
          .append("Content-Transfer-Encoding: binary\r\n")
          .append("Content-ID: <").append(PAYLOAD_CID).append(">\r\n\r\n");
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** The header fields and the {@code xop:Include} of one store element (the same in a batch and alone). */
    private static void fields(StringBuilder sb, Envelope e, Payload.Type type, long payloadLength, String cid) {
        element(sb, "domainId", Xml.escape(e.domainId()));
        element(sb, "context", Integer.toString(e.context()));
        element(sb, "from", Integer.toString(e.from()));
        element(sb, "to", Integer.toString(e.to()));
        element(sb, "tag", Integer.toString(e.tag()));
        element(sb, "seq", Long.toString(e.seq()));
        element(sb, "kind", e.kind().name());
        element(sb, "proof", e.proof() == null ? "" : Base64.getEncoder().encodeToString(e.proof()));
        element(sb, "type", type.name());
        element(sb, "length", Long.toString(payloadLength));
        sb.append("<m:payload><xop:Include xmlns:xop=\"").append(MpiwsNames.XOP_NS)
          .append("\" href=\"cid:").append(cid).append("\"/></m:payload>");
    }

    /** The Content-ID of the payload of entry {@code index} (from 0) of a batch. */
    static String batchPayloadCid(int index) {
        return "payload." + (index + 1) + "@mpfl";
    }

    /** The operation element of an envelope: {@code bstore} for a broadcast, else {@code store}. */
    static String operationOf(Envelope e) {
        return e.kind() == Envelope.Kind.BSTORE ? MpiwsNames.OP_BSTORE : MpiwsNames.OP_STORE;
    }

    /**
     * Writes one {@code storeBatch} request: the root part lists every envelope as a {@code store}
     * (or {@code bstore}) element under {@code m:storeBatch}, each referencing its own attachment,
     * and the attachments follow in the same order (the receiver admits each from its header just
     * before it reads that attachment). Payload bytes go straight from the arrays to the connection.
     */
    static void writeBatch(HttpConnection c, String path, String hostHeader, java.util.List<Envelope> envelopes) throws IOException {
        String boundary = BOUNDARY_PREFIX + Long.toHexString(BOUNDARY_COUNTER.incrementAndGet());
        String action = MpiwsNames.action(MpiwsNames.OP_STORE_BATCH);
        int n = envelopes.size();
        Payload[] payloads = new Payload[n];
        byte[][] encoded = new byte[n][];
        long[] lengths = new long[n];
        StringBuilder sb = new StringBuilder(256 + 700 * n);
        openRootPart(sb, boundary, action, MpiwsNames.OP_STORE_BATCH);
        for (int i = 0; i < n; i++) {
            Envelope e = envelopes.get(i);
            Payload p = e.payload() == null ? Payload.of(null) : e.payload();
            payloads[i] = p;
            switch (p.type()) {
                case DOUBLE_ARRAY -> lengths[i] = 8L * ((double[]) p.value()).length;
                case LONG_ARRAY -> lengths[i] = 8L * ((long[]) p.value()).length;
                case INT_ARRAY -> lengths[i] = 4L * ((int[]) p.value()).length;
                default -> {
                    encoded[i] = p.encode();
                    lengths[i] = encoded[i].length;
                }
            }
            String op = operationOf(e);
            sb.append("<m:").append(op).append('>');
            fields(sb, e, p.type(), lengths[i], batchPayloadCid(i));
            sb.append("</m:").append(op).append('>');
        }
        sb.append("</m:").append(MpiwsNames.OP_STORE_BATCH).append("></s:Body></s:Envelope>");
        byte[] root = sb.toString().getBytes(StandardCharsets.UTF_8);
        byte[][] partHeads = new byte[n][];
        long contentLength = root.length;
        for (int i = 0; i < n; i++) {
            partHeads[i] = ("\r\n--" + boundary + "\r\nContent-Type: application/octet-stream\r\n"
                    + "Content-Transfer-Encoding: binary\r\nContent-ID: <" + batchPayloadCid(i) + ">\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII);
            contentLength += partHeads[i].length + lengths[i];
        }
        byte[] tail = ("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.US_ASCII);
        contentLength += tail.length;
        c.writeAscii("POST " + path + " HTTP/1.1\r\nHost: " + hostHeader
                + "\r\nContent-Type: multipart/related; boundary=\"" + boundary
                + "\"; type=\"application/xop+xml\"; start=\"<" + ROOT_CID
                + ">\"; start-info=\"application/soap+xml\"; action=\"" + action
                + "\"\r\nMIME-Version: 1.0\r\nUser-Agent: mpfl-mpiws\r\nContent-Length: " + contentLength + "\r\n\r\n");
        c.write(root);
        for (int i = 0; i < n; i++) {
            c.write(partHeads[i]);
            writePayload(c, payloads[i], encoded[i]);
        }
        c.write(tail);
        c.flush();
    }

    private static void writePayload(HttpConnection c, Payload p, byte[] encodedNonArray) throws IOException {
        switch (p.type()) {
            case DOUBLE_ARRAY -> c.writeDoubles((double[]) p.value());
            case LONG_ARRAY -> c.writeLongs((long[]) p.value());
            case INT_ARRAY -> c.writeInts((int[]) p.value());
            default -> c.write(encodedNonArray);
        }
    }

    private static void element(StringBuilder sb, String name, String text) {
        sb.append("<m:").append(name).append('>').append(text).append("</m:").append(name).append('>');
    }
}
