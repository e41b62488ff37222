package org.mpfl.bench.mediator;

import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;
import org.mpfl.protocol.MediaType;
import org.mpfl.protocol.MpiwsNames;
import org.mpfl.protocol.Xml;
import org.mpfl.runtime.transport.ObjectTypes;
import org.mpfl.runtime.transport.Payload;

/**
 * The wire format of the mediator's {@code step} call: a SOAP 1.2 request-response whose values
 * (named inputs, named outputs) each travel in a {@code m:value name=… type=…} element; values of
 * more than {@value #INLINE_LIMIT} bytes are MTOM/XOP attachments in their {@link Payload} encoding
 * (arrays as raw little-endian elements — the same bytes the direct messaging sends), smaller ones
 * inline base64.
 *
 * <pre>{@code
 * <m:step xmlns:m="urn:mpfl:mpiws">
 *   <m:activity>org.example.Update</m:activity><m:rank>1</m:rank><m:size>4</m:size><m:round>7</m:round>
 *   <m:value name="all" type="DOUBLE_ARRAY"><xop:Include href="cid:v0.1@mpfl"/></m:value>
 * </m:step>
 * → <m:stepResponse><m:value name="block" type="DOUBLE_ARRAY">…</m:value>…</m:stepResponse>
 * }</pre>
 */
public final class StepWire {
    /** Name of the service every host publishes for the mediator. */
    public static final String SERVICE = "MediatedActivity";
    /** The request-response operation. */
    public static final String OPERATION = "step";
    /** Values up to this many bytes go inline (base64) rather than as an attachment. */
    static final int INLINE_LIMIT = 256;
    private static final AtomicLong BOUNDARIES = new AtomicLong();

    private StepWire() {
    }

    /** SOAP 1.2 action of {@code step}. */
    public static String action() {
        return MpiwsNames.action(OPERATION);
    }

    /**
     * The address of the step service in a host, from the base URL of the host's services
     * ({@code http://ADDR:PORT/axis2/services}, what the engine's registry calls its SOAP URL).
     */
    public static String serviceUrl(String servicesBaseUrl) {
        String base = servicesBaseUrl.endsWith("/") ? servicesBaseUrl.substring(0, servicesBaseUrl.length() - 1) : servicesBaseUrl;
        return base + "/" + SERVICE;
    }

    /** One step call: which activity, as which rank of how many, in which round, with which inputs. */
    public record StepRequest(String activity, int rank, int size, int round, Map<String, Object> inputs) {
    }

    /** An encoded HTTP body with its content type. */
    public record Body(String contentType, List<byte[]> parts, long length) {
    }

    /** Writes a step request as an MTOM package. */
    public static Body request(StepRequest r) {
        return request(r, new java.util.IdentityHashMap<>());
    }

    /**
     * Writes a step request, taking the encoding of each input value from {@code encoded} (by identity)
     * or adding it there: a mediator sending the same array to every rank of a round encodes it once,
     * as a BPEL engine holding the variable in its wire form would.
     */
    public static Body request(StepRequest r, Map<Object, byte[]> encoded) {
        String boundary = "MIMEBoundary_mpfl_step_" + BOUNDARIES.incrementAndGet();
        StringBuilder xml = new StringBuilder(512);
        xml.append("<soapenv:Envelope xmlns:soapenv=\"").append(MpiwsNames.SOAP12_NS).append("\"><soapenv:Body>")
                .append("<m:step xmlns:m=\"").append(MpiwsNames.NS).append("\" xmlns:xop=\"").append(MpiwsNames.XOP_NS).append("\">")
                .append("<m:activity>").append(Xml.escape(r.activity())).append("</m:activity>")
                .append("<m:rank>").append(r.rank()).append("</m:rank>")
                .append("<m:size>").append(r.size()).append("</m:size>")
                .append("<m:round>").append(r.round()).append("</m:round>");
        List<byte[]> attachments = new ArrayList<>();
        int i = 0;
        for (Map.Entry<String, Object> e : r.inputs().entrySet()) {
            Payload p = Payload.of(e.getValue());
            byte[] bytes = e.getValue() == null ? p.encode() : encoded.computeIfAbsent(e.getValue(), v -> p.encode());
            xml.append("<m:value name=\"").append(Xml.escape(e.getKey())).append("\" type=\"").append(p.type()).append("\">");
            if (bytes.length > INLINE_LIMIT) {
                String cid = "v" + (i++) + "." + boundary + "@mpfl";
                xml.append("<xop:Include href=\"cid:").append(cid).append("\"/>");
                attachments.add(("\r\n--" + boundary + "\r\nContent-Type: application/octet-stream\r\n"
                        + "Content-Transfer-Encoding: binary\r\nContent-ID: <" + cid + ">\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                attachments.add(bytes);
            } else {
                xml.append(Base64.getEncoder().encodeToString(bytes));
            }
            xml.append("</m:value>");
        }
        xml.append("</m:step></soapenv:Body></soapenv:Envelope>");
        List<byte[]> parts = new ArrayList<>();
        parts.add(("--" + boundary + "\r\nContent-Type: application/xop+xml; charset=UTF-8; type=\"application/soap+xml\"\r\n"
                + "Content-Transfer-Encoding: binary\r\nContent-ID: <root." + boundary + "@mpfl>\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        parts.add(xml.toString().getBytes(StandardCharsets.UTF_8));
        parts.addAll(attachments);
        parts.add(("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.US_ASCII));
        long length = 0;
        for (byte[] b : parts) {
            length += b.length;
        }
        String contentType = "multipart/related; boundary=\"" + boundary + "\"; type=\"application/xop+xml\"; start=\"<root."
                + boundary + "@mpfl>\"; start-info=\"application/soap+xml\"; action=\"" + action() + "\"";
        return new Body(contentType, parts, length);
    }

    /**
     * Reads the values of a {@code stepResponse} (or of a request's {@code m:value}s) from an HTTP body:
     * a multipart/related MTOM package or a plain SOAP envelope.
     */
    public static Map<String, Object> values(String contentType, byte[] body, ObjectTypes allowed) throws IOException {
        MediaType mt = MediaType.parse(contentType);
        byte[] root = body;
        Map<String, byte[]> attachments = new HashMap<>();
        if (mt.type().equals("multipart/related")) {
            String boundary = mt.param("boundary");
            if (boundary == null) {
                throw new IOException("multipart answer without a boundary");
            }
            List<Part> parts = split(body, boundary);
            if (parts.isEmpty()) {
                throw new IOException("empty multipart answer");
            }
            String start = mt.param("start");
            root = null;
            for (Part p : parts) {
                if (root == null && (start == null || stripAngles(start).equals(p.contentId()))) {
                    root = p.body();
                } else if (p.contentId() != null) {
                    attachments.put(p.contentId(), p.body());
                }
            }
            if (root == null) {
                root = parts.get(0).body();
            }
        }
        try {
            return parseValues(root, attachments, allowed);
        } catch (XMLStreamException e) {
            throw new IOException("bad step message: " + e.getMessage(), e);
        }
    }

    /** The SOAP envelope of a body: the root part of a multipart/related (MTOM) package, else the body itself. */
    public static byte[] envelope(String contentType, byte[] body) throws IOException {
        MediaType mt = MediaType.parse(contentType);
        if (!mt.type().equals("multipart/related") || mt.param("boundary") == null) {
            return body;
        }
        List<Part> parts = split(body, mt.param("boundary"));
        String start = mt.param("start");
        for (Part p : parts) {
            if (start == null || stripAngles(start).equals(p.contentId())) {
                return p.body();
            }
        }
        return parts.isEmpty() ? body : parts.get(0).body();
    }

    private static Map<String, Object> parseValues(byte[] root, Map<String, byte[]> attachments, ObjectTypes allowed)
            throws XMLStreamException, IOException {
        Map<String, Object> values = new LinkedHashMap<>();
        XMLStreamReader x = Xml.reader(new java.io.ByteArrayInputStream(root));
        while (x.hasNext()) {
            if (x.next() != XMLStreamConstants.START_ELEMENT || !MpiwsNames.NS.equals(x.getNamespaceURI())
                    || !x.getLocalName().equals("value")) {
                continue;
            }
            String name = x.getAttributeValue(null, "name");
            Payload.Type type = Payload.Type.valueOf(x.getAttributeValue(null, "type"));
            byte[] bytes = null;
            StringBuilder text = new StringBuilder();
            int depth = 1;
            while (depth > 0) {
                int ev = x.next();
                if (ev == XMLStreamConstants.START_ELEMENT) {
                    depth++;
                    if (x.getLocalName().equals("Include")) {
                        String cid = cid(x.getAttributeValue(null, "href"));
                        bytes = attachments.get(cid);
                        if (bytes == null) {
                            throw new IOException("value " + name + " refers to a missing attachment " + cid);
                        }
                    }
                } else if (ev == XMLStreamConstants.END_ELEMENT) {
                    depth--;
                } else if (ev == XMLStreamConstants.CHARACTERS || ev == XMLStreamConstants.CDATA) {
                    text.append(x.getText());
                }
            }
            if (bytes == null) {
                bytes = Base64.getMimeDecoder().decode(text.toString().trim());
            }
            values.put(name, Payload.decode(type, bytes).value(allowed));
        }
        return values;
    }

    /** One MIME part. */
    private record Part(String contentId, byte[] body) {
    }

    /** Splits a multipart body at its boundary delimiters (RFC 2046), keeping each part's Content-ID. */
    private static List<Part> split(byte[] body, String boundary) throws IOException {
        byte[] delimiter = ("--" + boundary).getBytes(StandardCharsets.US_ASCII);
        List<Part> parts = new ArrayList<>();
        int at = indexOf(body, delimiter, 0);
        if (at < 0) {
            throw new IOException("multipart body without its boundary");
        }
        for (;;) {
            int lineEnd = indexOf(body, new byte[] {'\r', '\n'}, at + delimiter.length);
            if (lineEnd < 0 || (body.length > at + delimiter.length + 1 && body[at + delimiter.length] == '-'
                    && body[at + delimiter.length + 1] == '-')) {
                return parts; // the closing delimiter
            }
            int headersEnd = indexOf(body, new byte[] {'\r', '\n', '\r', '\n'}, lineEnd);
            if (headersEnd < 0) {
                throw new IOException("multipart part without the end of its headers");
            }
            String headers = new String(body, lineEnd + 2, headersEnd - lineEnd - 2, StandardCharsets.ISO_8859_1);
            int next = indexOf(body, ("\r\n--" + boundary).getBytes(StandardCharsets.US_ASCII), headersEnd + 4);
            if (next < 0) {
                throw new IOException("multipart part without a closing boundary");
            }
            byte[] content = java.util.Arrays.copyOfRange(body, headersEnd + 4, next);
            String id = null;
            for (String h : headers.split("\r\n")) {
                int colon = h.indexOf(':');
                if (colon > 0 && h.substring(0, colon).trim().equalsIgnoreCase("Content-ID")) {
                    id = stripAngles(h.substring(colon + 1).trim());
                }
            }
            parts.add(new Part(id, content));
            at = next + 2;
        }
    }

    private static int indexOf(byte[] hay, byte[] needle, int from) {
        outer:
        for (int i = Math.max(0, from); i <= hay.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    private static String stripAngles(String s) {
        String t = s.trim();
        return t.startsWith("<") && t.endsWith(">") ? t.substring(1, t.length() - 1) : t;
    }

    private static String cid(String href) {
        String h = href == null ? "" : href.trim();
        if (h.startsWith("cid:")) {
            h = h.substring(4);
        }
        return URLDecoder.decode(h, StandardCharsets.UTF_8);
    }
}
