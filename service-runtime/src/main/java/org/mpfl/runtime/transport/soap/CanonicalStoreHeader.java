package org.mpfl.runtime.transport.soap;

import java.nio.charset.StandardCharsets;
import org.mpfl.protocol.MpiwsNames;

/**
 * Reads the SOAP root part of a store in the exact canonical form {@link StoreMessageWriter}
 * produces (same prefixes, element order, no whitespace, no entity references) by matching it byte
 * for byte; anything else — another client's layout, other prefixes, comments, escapes — makes it
 * give up and the general StAX reader takes over. For that one document the result is what an XML
 * parser would give; it only skips building a parser per message on the hot path.
 */
final class CanonicalStoreHeader {
    private static final String[] FIELDS = {"domainId", "context", "from", "to", "tag", "seq", "kind", "proof", "type", "length"};
    private static final byte[] PROLOG = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><s:Envelope xmlns:s=\""
            + MpiwsNames.SOAP12_NS + "\"><s:Body><m:").getBytes(StandardCharsets.US_ASCII);
    private static final byte[] AFTER_OP = (" xmlns:m=\"" + MpiwsNames.NS + "\">").getBytes(StandardCharsets.US_ASCII);
    private static final byte[] INCLUDE = ("<m:payload><xop:Include xmlns:xop=\"" + MpiwsNames.XOP_NS + "\" href=\"")
            .getBytes(StandardCharsets.US_ASCII);

    private CanonicalStoreHeader() {
    }

    /** The field values in {@link #FIELDS} order, the operation and the href; {@code null} if not canonical. */
    static String[] tryParse(byte[] xml) {
        int p = match(xml, 0, PROLOG);
        if (p < 0) {
            return null;
        }
        String op;
        if (startsWith(xml, p, "store ")) {
            op = MpiwsNames.OP_STORE;
        } else if (startsWith(xml, p, "bstore ")) {
            op = MpiwsNames.OP_BSTORE;
        } else {
            return null;
        }
        p = match(xml, p + op.length(), AFTER_OP);
        if (p < 0) {
            return null;
        }
        String[] out = new String[FIELDS.length + 2];
        for (int i = 0; i < FIELDS.length; i++) {
            String open = "<m:" + FIELDS[i] + ">";
            if (!startsWith(xml, p, open)) {
                return null;
            }
            p += open.length();
            int end = p;
            while (end < xml.length && xml[end] != '<') {
                if (xml[end] == '&') {
                    return null; // an entity reference: leave it to the XML parser
                }
                end++;
            }
            out[i] = new String(xml, p, end - p, StandardCharsets.UTF_8);
            String close = "</m:" + FIELDS[i] + ">";
            if (!startsWith(xml, end, close)) {
                return null;
            }
            p = end + close.length();
        }
        p = match(xml, p, INCLUDE);
        if (p < 0) {
            return null;
        }
        int q = p;
        while (q < xml.length && xml[q] != '"') {
            if (xml[q] == '&' || xml[q] == '<') {
                return null;
            }
            q++;
        }
        String href = new String(xml, p, q - p, StandardCharsets.US_ASCII);
        String tail = "\"/></m:payload></m:" + op + "></s:Body></s:Envelope>";
        if (!startsWith(xml, q, tail)) {
            return null;
        }
        for (int r = q + tail.length(); r < xml.length; r++) {
            if (xml[r] != '\r' && xml[r] != '\n' && xml[r] != ' ' && xml[r] != '\t') {
                return null;
            }
        }
        out[FIELDS.length] = op;
        out[FIELDS.length + 1] = href;
        return out;
    }

    private static int match(byte[] xml, int at, byte[] expected) {
        if (at + expected.length > xml.length) {
            return -1;
        }
        for (int i = 0; i < expected.length; i++) {
            if (xml[at + i] != expected[i]) {
                return -1;
            }
        }
        return at + expected.length;
    }

    private static boolean startsWith(byte[] xml, int at, String s) {
        if (at + s.length() > xml.length) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            if (xml[at + i] != (byte) s.charAt(i)) {
                return false;
            }
        }
        return true;
    }
}
