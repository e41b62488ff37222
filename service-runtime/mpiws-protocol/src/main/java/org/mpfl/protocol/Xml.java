package org.mpfl.protocol;

import java.io.InputStream;
import java.io.Reader;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/** XML helpers: escaping, and a StAX factory with DTDs and external entities switched off. */
public final class Xml {
    private static final XMLInputFactory FACTORY = newSecureFactory();

    private Xml() {
    }

    /** A StAX factory that refuses DTDs and never resolves external entities (no XXE, no entity bombs). */
    public static XMLInputFactory newSecureFactory() {
        XMLInputFactory f = XMLInputFactory.newInstance();
        f.setProperty(XMLInputFactory.SUPPORT_DTD, false);
        f.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
        f.setProperty(XMLInputFactory.IS_NAMESPACE_AWARE, true);
        f.setProperty(XMLInputFactory.IS_COALESCING, true);
        f.setXMLResolver((publicId, systemId, baseUri, ns) -> {
            throw new XMLStreamException("external entities are not allowed: " + systemId);
        });
        return f;
    }

    public static XMLStreamReader reader(InputStream in) throws XMLStreamException {
        return FACTORY.createXMLStreamReader(in);
    }

    public static XMLStreamReader reader(Reader in) throws XMLStreamException {
        return FACTORY.createXMLStreamReader(in);
    }

    /** Escapes text for element content and double-quoted attribute values. */
    public static String escape(String s) {
        if (s == null) {
            return "";
        }
        StringBuilder sb = null;
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            String rep = switch (ch) {
                case '<' -> "&lt;";
                case '>' -> "&gt;";
                case '&' -> "&amp;";
                case '"' -> "&quot;";
                case '\'' -> "&apos;";
                default -> null;
            };
            if (rep != null) {
                if (sb == null) {
                    sb = new StringBuilder(s.length() + 16).append(s, 0, i);
                }
                sb.append(rep);
            } else if (sb != null) {
                sb.append(ch);
            }
        }
        return sb == null ? s : sb.toString();
    }
}
