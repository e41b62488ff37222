package org.mpfl.protocol;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamReader;

/**
 * A SOAP 1.2 fault as MPIWS uses it: the standard code ({@code Sender} or {@code Receiver}), an
 * MPIWS subcode telling the client what to do ({@code m:Rejected} — do not retry;
 * {@code m:Busy} — back off and retry; {@code m:Malformed}; {@code m:Failed}) and a reason text.
 *
 * @param code    {@code Sender} or {@code Receiver}
 * @param subcode MPIWS subcode local name, or {@code null} for a fault from elsewhere
 * @param reason  human-readable reason
 */
public record SoapFault(String code, String subcode, String reason) {
    public static final String REJECTED = "Rejected";
    public static final String BUSY = "Busy";
    public static final String MALFORMED = "Malformed";
    public static final String FAILED = "Failed";

    /** The fault as a complete SOAP 1.2 envelope. */
    public String toXml() {
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?><s:Envelope xmlns:s=\"" + MpiwsNames.SOAP12_NS
                + "\" xmlns:m=\"" + MpiwsNames.NS + "\"><s:Body><s:Fault><s:Code><s:Value>s:" + code
                + "</s:Value>" + (subcode == null ? "" : "<s:Subcode><s:Value>m:" + subcode + "</s:Value></s:Subcode>")
                + "</s:Code><s:Reason><s:Text xml:lang=\"en\">" + Xml.escape(reason)
                + "</s:Text></s:Reason></s:Fault></s:Body></s:Envelope>";
    }

    /** The HTTP status SOAP 1.2's HTTP binding gives a fault: 400 for Sender faults, 500 otherwise. */
    public int httpStatus() {
        return "Sender".equals(code) ? 400 : 500;
    }

    /** Parses a fault from a response body; {@code null} if the body holds no SOAP 1.2 fault. */
    public static SoapFault parse(byte[] body) {
        if (body == null || body.length == 0) {
            return null;
        }
        try {
            XMLStreamReader r = Xml.reader(new ByteArrayInputStream(body));
            String code = null;
            String subcode = null;
            String reason = null;
            boolean inFault = false;
            String path = "";
            while (r.hasNext()) {
                int ev = r.next();
                if (ev == XMLStreamConstants.START_ELEMENT) {
                    String local = r.getLocalName();
                    if (local.equals("Fault") && MpiwsNames.SOAP12_NS.equals(r.getNamespaceURI())) {
                        inFault = true;
                    }
                    path = path + "/" + local;
                    if (inFault && local.equals("Value")) {
                        String v = localPart(r.getElementText().trim());
                        if (path.endsWith("Subcode/Value")) {
                            subcode = subcode == null ? v : subcode;
                        } else {
                            code = v;
                        }
                        path = path.substring(0, path.lastIndexOf('/'));
                    } else if (inFault && local.equals("Text") && reason == null) {
                        reason = r.getElementText().trim();
                        path = path.substring(0, path.lastIndexOf('/'));
                    }
                } else if (ev == XMLStreamConstants.END_ELEMENT) {
                    path = path.substring(0, Math.max(0, path.lastIndexOf('/')));
                }
            }
            return inFault ? new SoapFault(code, subcode, reason == null ? "" : reason) : null;
        } catch (Exception e) {
            return null;
        }
    }

    /** A fault-like description of an error answer (plain SOAP, MTOM-packaged SOAP, or not SOAP at all). */
    public static SoapFault fromHttp(int status, String contentType, byte[] body) {
        SoapFault f;
        try {
            f = parse(rootPart(contentType, body));
        } catch (java.io.IOException e) {
            f = null;
        }
        if (f != null) {
            return f;
        }
        String text = new String(body, 0, Math.min(body.length, 300), StandardCharsets.UTF_8);
        return new SoapFault(status >= 500 ? "Receiver" : "Sender", null, "HTTP " + status + " " + text);
    }

    /**
     * The SOAP envelope bytes of a body: the body itself, or the root part of an MTOM/XOP package
     * ({@code multipart/related}; Axis2 with MTOM always on packages every answer, faults included).
     */
    public static byte[] rootPart(String contentType, byte[] body) throws java.io.IOException {
        MediaType mt = MediaType.parse(contentType);
        if (!mt.type().equals("multipart/related") || mt.param("boundary") == null) {
            return body;
        }
        String boundary = mt.param("boundary");
        MimeInput in = new MimeInput(new java.io.ByteArrayInputStream(body));
        for (int i = 0; !in.readLine().trim().equals("--" + boundary); i++) {
            if (i > 100) {
                throw new java.io.IOException("no MIME boundary in the answer");
            }
        }
        while (!in.readLine().isEmpty()) {
            // root part headers
        }
        return in.readUntil(("\r\n--" + boundary).getBytes(StandardCharsets.ISO_8859_1), body.length);
    }

    private static String localPart(String qname) {
        int colon = qname.indexOf(':');
        return colon < 0 ? qname : qname.substring(colon + 1);
    }
}
