package org.mpfl.runtime.transport.soap;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamReader;
import org.mpfl.protocol.MpiwsNames;
import org.mpfl.protocol.SoapFault;
import org.mpfl.protocol.Xml;

/**
 * The answer to a {@code storeBatch}: one entry per envelope the receiver got to, in the batch's
 * order — {@code m:stored} (stored, or a duplicate dropped) or {@code m:fault} with the SOAP 1.2
 * code, the MPIWS subcode and the reason a single {@code store} would have been answered with.
 * Envelopes after the last entry were not processed (the sender resends them).
 */
public final class StoreBatchResponse {
    private StoreBatchResponse() {
    }

    /** The answer's SOAP 1.2 envelope; a {@code null} element of {@code outcomes} is a stored envelope. */
    public static String toXml(List<SoapFault> outcomes, int entries) {
        StringBuilder sb = new StringBuilder(200 + 40 * outcomes.size());
        sb.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?><s:Envelope xmlns:s=\"").append(MpiwsNames.SOAP12_NS)
          .append("\"><s:Body><m:storeBatchResponse xmlns:m=\"").append(MpiwsNames.NS).append("\" entries=\"")
          .append(entries).append("\">");
        for (SoapFault f : outcomes) {
            if (f == null) {
                sb.append("<m:stored/>");
            } else {
                sb.append("<m:fault><m:code>").append(Xml.escape(f.code())).append("</m:code>");
                if (f.subcode() != null) {
                    sb.append("<m:subcode>").append(Xml.escape(f.subcode())).append("</m:subcode>");
                }
                sb.append("<m:reason>").append(Xml.escape(f.reason())).append("</m:reason></m:fault>");
            }
        }
        return sb.append("</m:storeBatchResponse></s:Body></s:Envelope>").toString();
    }

    /**
     * The outcomes of a {@code storeBatch} answer ({@code null} elements: stored), or {@code null}
     * if the body is not a {@code storeBatchResponse} (a server that does not know the operation).
     */
    public static List<SoapFault> parse(byte[] body) {
        if (body == null || body.length == 0) {
            return null;
        }
        try {
            XMLStreamReader r = Xml.reader(new ByteArrayInputStream(body));
            List<SoapFault> out = null;
            try {
                while (r.hasNext()) {
                    if (r.next() != XMLStreamConstants.START_ELEMENT || !MpiwsNames.NS.equals(r.getNamespaceURI())) {
                        continue;
                    }
                    switch (r.getLocalName()) {
                        case "storeBatchResponse" -> out = new ArrayList<>();
                        case "stored" -> {
                            if (out != null) {
                                out.add(null);
                            }
                        }
                        case "fault" -> {
                            if (out != null) {
                                out.add(fault(r));
                            }
                        }
                        default -> { }
                    }
                }
            } finally {
                r.close();
            }
            return out;
        } catch (Exception e) {
            return null;
        }
    }

    private static SoapFault fault(XMLStreamReader r) throws javax.xml.stream.XMLStreamException {
        String code = "Receiver";
        String subcode = null;
        String reason = "";
        int depth = 1;
        while (depth > 0) {
            int ev = r.next();
            if (ev == XMLStreamConstants.START_ELEMENT) {
                switch (r.getLocalName()) {
                    case "code" -> code = r.getElementText().trim();
                    case "subcode" -> subcode = r.getElementText().trim();
                    case "reason" -> reason = r.getElementText().trim();
                    default -> depth++;
                }
            } else if (ev == XMLStreamConstants.END_ELEMENT) {
                depth--;
            }
        }
        return new SoapFault(code, subcode, reason);
    }

    /** {@link #toXml} as UTF-8 bytes. */
    public static byte[] toBytes(List<SoapFault> outcomes, int entries) {
        return toXml(outcomes, entries).getBytes(StandardCharsets.UTF_8);
    }
}
