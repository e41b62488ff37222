package org.mpfl.compiler.parse;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.XMLConstants;
import javax.xml.parsers.ParserConfigurationException;
import javax.xml.parsers.SAXParser;
import javax.xml.parsers.SAXParserFactory;
import org.mpfl.compiler.ast.Attribute;
import org.mpfl.compiler.ast.Element;
import org.mpfl.ir.diag.Diagnostics;
import org.mpfl.ir.diag.SourceLocation;
import org.xml.sax.Attributes;
import org.xml.sax.InputSource;
import org.xml.sax.Locator;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;
import org.xml.sax.helpers.DefaultHandler;

/**
 * Reads an MPFL document into a located {@link Element} tree, securely: a DOCTYPE is refused
 * before anything in it is read (so no DTD, no entity — internal or external — is ever expanded),
 * external entities and DTD loading are off, XInclude is off, and documents above
 * {@link #MAX_DOCUMENT_BYTES} are refused unread. Well-formedness errors become diagnostics at
 * their position.
 *
 * <p>SAX only reports the position just after a start tag, so the reader scans the raw tag text
 * back from there to find the exact position of the {@code <} and of every attribute name and
 * value (attribute values cannot contain a raw {@code <}, which makes the scan unambiguous).
 */
public final class DocumentReader {
    /** Largest document accepted (10 MB). */
    public static final long MAX_DOCUMENT_BYTES = 10L * 1024 * 1024;
    /** Deepest element nesting accepted: the checker walks the tree recursively, and no workflow needs more. */
    public static final int MAX_DEPTH = 200;

    private static final Pattern ENCODING = Pattern.compile("^<\\?xml[^>]*encoding\\s*=\\s*[\"']([A-Za-z0-9._-]+)[\"']");

    private final Diagnostics diagnostics;

    public DocumentReader(Diagnostics diagnostics) {
        this.diagnostics = diagnostics;
    }

    /**
     * Reads a file; {@code displayName} is the name used in diagnostics (as given on the command line).
     * Returns the root element, or null after reporting why there is none.
     */
    public Element read(Path file, String displayName) {
        SourceLocation start = SourceLocation.startOf(displayName);
        try {
            if (!Files.isRegularFile(file)) {
                diagnostics.error(start, Files.exists(file) ? "not a regular file" : "file not found");
                return null;
            }
            if (Files.size(file) > MAX_DOCUMENT_BYTES) {
                diagnostics.error(start, "document is larger than " + MAX_DOCUMENT_BYTES / (1024 * 1024)
                        + " MB; refused unread");
                return null;
            }
            byte[] content;
            try (InputStream in = Files.newInputStream(file)) {
                content = in.readNBytes((int) MAX_DOCUMENT_BYTES + 1);
            }
            return read(content, displayName);
        } catch (NoSuchFileException e) {
            diagnostics.error(start, "file not found");
            return null;
        } catch (IOException e) {
            diagnostics.error(start, "cannot read file: " + e.getMessage());
            return null;
        }
    }

    /** Reads a document held in memory. */
    public Element read(byte[] content, String displayName) {
        SourceLocation start = SourceLocation.startOf(displayName);
        if (content.length > MAX_DOCUMENT_BYTES) {
            diagnostics.error(start, "document is larger than " + MAX_DOCUMENT_BYTES / (1024 * 1024) + " MB; refused unread");
            return null;
        }
        return parse(decode(content), new InputSource(new ByteArrayInputStream(content)), displayName);
    }

    /**
     * Reads a document that is already text (as the engine gets it in JSON, or {@link #text} made it): its
     * characters are parsed as they are, and an encoding its XML declaration names is not applied again.
     */
    public Element read(String text, String displayName) {
        if (text.length() > MAX_DOCUMENT_BYTES) {
            diagnostics.error(SourceLocation.startOf(displayName), "document is larger than "
                    + MAX_DOCUMENT_BYTES / (1024 * 1024) + " MB; refused unread");
            return null;
        }
        String withoutMark = text.startsWith("\uFEFF") ? text.substring(1) : text;
        return parse(withoutMark, new InputSource(new StringReader(withoutMark)), displayName);
    }

    /**
     * The text of a document's bytes as the parser reads them: decoded with the encoding its XML declaration
     * names (UTF-8 without one; a byte order mark dropped). Bytes that are not text in that encoding, or an
     * encoding Java does not know, are reported as {@link #read(byte[], String)} reports them (the parser's
     * diagnostic at its position), and the result is null. What sends a document on as text (mpflc run and
     * deploy) reads it here, so that it carries what {@code mpflc check} read.
     */
    public String text(byte[] content, String displayName) {
        SourceLocation start = SourceLocation.startOf(displayName);
        if (content.length > MAX_DOCUMENT_BYTES) {
            diagnostics.error(start, "document is larger than " + MAX_DOCUMENT_BYTES / (1024 * 1024) + " MB; refused unread");
            return null;
        }
        Charset charset = declaredCharset(content);
        if (charset != null) {
            try {
                String text = charset.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(content)).toString();
                return text.startsWith("\uFEFF") ? text.substring(1) : text;
            } catch (CharacterCodingException e) {
                // the parser names the position of the bad byte
            }
        }
        int before = diagnostics.errorCount();
        read(content, displayName);
        if (diagnostics.errorCount() == before) {
            diagnostics.error(start, "not " + (charset == null ? "readable" : charset.name()) + " text");
        }
        return null;
    }

    /** Parses {@code source}; {@code text} is the same document as characters, for locating tags and attributes. */
    private Element parse(String text, InputSource source, String displayName) {
        SourceLocation start = SourceLocation.startOf(displayName);
        LineMap lines = new LineMap(displayName, text);
        LocatingHandler handler = new LocatingHandler(text, lines);
        try {
            SAXParser parser = secureFactory().newSAXParser();
            source.setSystemId(displayName);
            parser.parse(source, handler);
        } catch (SAXParseException e) {
            reportMalformed(e, displayName);
            return null;
        } catch (SAXException | IOException e) {
            diagnostics.error(start, "malformed XML: " + e.getMessage());
            return null;
        } catch (ParserConfigurationException e) {
            throw new IllegalStateException("the JDK XML parser does not support secure processing", e);
        }
        return handler.root;
    }

    private void reportMalformed(SAXParseException e, String displayName) {
        SourceLocation at = new SourceLocation(displayName, Math.max(1, e.getLineNumber()), Math.max(1, e.getColumnNumber()));
        String message = e.getMessage() == null ? "malformed XML" : e.getMessage();
        if (message.contains("DOCTYPE") || message.contains("doctype")) {
            diagnostics.error(at, "DOCTYPE declarations are not allowed in MPFL documents "
                    + "(DTDs and entities are refused; nothing in the DOCTYPE was read)");
        } else if (message.contains("Premature end of file")) {
            diagnostics.error(at, "malformed XML: the document ends before its root element is complete (or is empty)");
        } else if (message.startsWith("elements are nested deeper")) {
            diagnostics.error(at, message);
        } else if (message.contains("must not contain the '<' character")) {
            // x < 3 as other languages write it: the parser's words alone do not say what to write instead
            diagnostics.error(at, "malformed XML: " + message + " (in an expression write lt or le instead, or &lt;)");
        } else if (message.contains("must immediately follow the '&'")) {
            diagnostics.error(at, "malformed XML: " + message + " (in an expression write and instead of &&; elsewhere &amp; for &)");
        } else {
            diagnostics.error(at, "malformed XML: " + message);
        }
    }

    static SAXParserFactory secureFactory() throws ParserConfigurationException, SAXException {
        SAXParserFactory factory = SAXParserFactory.newInstance();
        factory.setNamespaceAware(true);
        factory.setValidating(false);
        factory.setXIncludeAware(false);
        factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
        // refusing the DOCTYPE itself is the only switch that guarantees no entity is ever expanded
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        factory.setFeature("http://xml.org/sax/features/external-general-entities", false);
        factory.setFeature("http://xml.org/sax/features/external-parameter-entities", false);
        factory.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        return factory;
    }

    /** Decodes for position scanning with the declared encoding (UTF-8 by default; a byte order mark is dropped). */
    static String decode(byte[] content) {
        Charset charset = declaredCharset(content);
        // the SAX parser reports an unsupported encoding itself
        String text = new String(content, charset == null ? StandardCharsets.UTF_8 : charset);
        // the XML parser does not count a byte order mark as a column, and neither do editors
        return text.startsWith("\uFEFF") ? text.substring(1) : text;
    }

    /**
     * The encoding the XML declaration names, UTF-8 without one; {@code null} if Java does not know the one named.
     * A UTF-16 byte order mark decides before the declaration, as it does for the parser.
     */
    private static Charset declaredCharset(byte[] content) {
        if (content.length >= 2 && (content[0] & 0xFF) + (content[1] & 0xFF) == 0xFE + 0xFF
                && (content[0] & 0xFF) >= 0xFE && (content[1] & 0xFF) >= 0xFE) {
            return StandardCharsets.UTF_16;
        }
        String head = new String(content, 0, Math.min(content.length, 200), StandardCharsets.ISO_8859_1);
        Matcher m = ENCODING.matcher(head.startsWith("\u00EF\u00BB\u00BF") ? head.substring(3) : head);
        if (!m.find()) {
            return StandardCharsets.UTF_8;
        }
        try {
            return Charset.forName(m.group(1));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** Builds the element tree, locating tags and attributes in the raw text. */
    private final class LocatingHandler extends DefaultHandler {
        private final String text;
        private final LineMap lines;
        private final Deque<Element> open = new ArrayDeque<>();
        private Locator locator;
        private Element root;

        LocatingHandler(String text, LineMap lines) {
            this.text = text;
            this.lines = lines;
        }

        @Override
        public void setDocumentLocator(Locator locator) {
            this.locator = locator;
        }

        @Override
        public InputSource resolveEntity(String publicId, String systemId) throws SAXException {
            // unreachable with the DOCTYPE refused; kept so that nothing is ever fetched even if a parser ignores a feature
            throw new SAXException("external entities are not allowed: " + systemId);
        }

        @Override
        public void startElement(String uri, String localName, String qName, Attributes attributes) throws SAXException {
            if (open.size() >= MAX_DEPTH) {
                throw new SAXParseException("elements are nested deeper than " + MAX_DEPTH + " levels", locator);
            }
            int tagEnd = lines.offset(locator.getLineNumber(), locator.getColumnNumber());
            int tagStart = tagEnd <= 0 ? -1 : text.lastIndexOf('<', tagEnd - 1);
            boolean located = tagStart >= 0 && text.startsWith(qName, tagStart + 1);
            SourceLocation elementAt = located ? lines.location(tagStart)
                    : new SourceLocation(lines.location(0).file(), locator.getLineNumber(), locator.getColumnNumber());
            Element element = new Element(uri, localName, elementAt);
            Map<String, int[]> rawAttributes = located ? scanAttributes(tagStart, tagEnd) : Map.of();
            for (int i = 0; i < attributes.getLength(); i++) {
                if (!attributes.getURI(i).isEmpty()) {
                    continue; // foreign-namespace attributes (xsi:..., extensions) are not MPFL's business
                }
                String name = attributes.getQName(i);
                String value = attributes.getValue(i);
                int[] raw = rawAttributes.get(name);
                if (raw == null) {
                    element.addAttribute(new Attribute(name, value, elementAt, null));
                } else {
                    int valueStart = raw[1];
                    element.addAttribute(new Attribute(name, value, lines.location(raw[0]),
                            offset -> lines.location(rawOffset(valueStart, offset))));
                }
            }
            if (open.isEmpty()) {
                root = element;
            } else {
                open.peek().addChild(element);
            }
            open.push(element);
        }

        @Override
        public void endElement(String uri, String localName, String qName) {
            open.pop();
        }

        @Override
        public void characters(char[] ch, int start, int length) {
            if (!open.isEmpty()) {
                String chunk = new String(ch, start, length);
                // the locator points just after the chunk: step back to where its first non-blank character is
                int end = lines.offset(locator.getLineNumber(), locator.getColumnNumber());
                if (end > 0 && text.charAt(end - 1) == '<') {
                    end--; // Xerces has already consumed the '<' of the next markup
                }
                int leading = chunk.length() - chunk.stripLeading().length();
                SourceLocation at = end < 0
                        ? new SourceLocation(lines.location(0).file(), locator.getLineNumber(), locator.getColumnNumber())
                        : lines.location(Math.max(0, end - length + leading));
                open.peek().appendText(chunk, at);
            }
        }

        /** name → {offset of the name, offset of the first value character}. */
        private Map<String, int[]> scanAttributes(int tagStart, int tagEnd) {
            Map<String, int[]> found = new HashMap<>();
            int i = tagStart + 1;
            while (i < tagEnd && !isNameEnd(text.charAt(i))) {
                i++;
            }
            while (i < tagEnd) {
                while (i < tagEnd && Character.isWhitespace(text.charAt(i))) {
                    i++;
                }
                if (i >= tagEnd || text.charAt(i) == '/' || text.charAt(i) == '>') {
                    break;
                }
                int nameStart = i;
                while (i < tagEnd && !isNameEnd(text.charAt(i)) && text.charAt(i) != '=') {
                    i++;
                }
                String name = text.substring(nameStart, i);
                while (i < tagEnd && text.charAt(i) != '"' && text.charAt(i) != '\'') {
                    i++;
                }
                if (i >= tagEnd) {
                    break;
                }
                char quote = text.charAt(i);
                int valueStart = i + 1;
                int valueEnd = text.indexOf(quote, valueStart);
                if (valueEnd < 0 || valueEnd > tagEnd) {
                    break;
                }
                found.put(name, new int[] {nameStart, valueStart});
                i = valueEnd + 1;
            }
            return found;
        }

        private boolean isNameEnd(char c) {
            return Character.isWhitespace(c) || c == '/' || c == '>';
        }

        /** Maps an offset in the decoded value to the raw text: entity and character references count as one character. */
        private int rawOffset(int valueStart, int decodedOffset) {
            int raw = valueStart;
            for (int k = 0; k < decodedOffset && raw < text.length(); k++) {
                char c = text.charAt(raw);
                if (c == '&') {
                    int semicolon = text.indexOf(';', raw);
                    raw = semicolon < 0 ? raw + 1 : semicolon + 1;
                } else if (c == '\r' && raw + 1 < text.length() && text.charAt(raw + 1) == '\n') {
                    raw += 2;
                } else {
                    raw++;
                }
            }
            return raw;
        }
    }
}
