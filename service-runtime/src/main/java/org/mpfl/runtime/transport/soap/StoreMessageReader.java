package org.mpfl.runtime.transport.soap;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;
import org.mpfl.protocol.MediaType;
import org.mpfl.protocol.MimeInput;
import org.mpfl.protocol.MpiwsNames;
import org.mpfl.protocol.Xml;
import org.mpfl.runtime.transport.Envelope;
import org.mpfl.runtime.transport.Payload;

/**
 * Reads one {@code store}/{@code bstore} request body, SOAP 1.2 either as an MTOM/XOP package
 * ({@code multipart/related}, the payload a binary part referenced by {@code xop:Include}) or as a
 * plain {@code application/soap+xml} envelope with the payload inline in base64 — what any
 * standard client may send for the WSDL's operation. The lean server path: no object model, a
 * StAX pass over the small root part, and the attachment read straight into the payload array
 * when {@code m:length} announces its size.
 *
 * <p>Header first: the store's header fields are read (at most {@value #MAX_ROOT_BYTES} bytes),
 * then a {@link Gate} decides — domain known, token proof, announced length, memory — and only
 * then is a payload byte allocated. Whoever the gate refuses costs the host the header's bytes.
 *
 * <p>Why one class of about 700 lines: it is a single streaming pass over one untrusted body, and
 * its parts share that pass's state and bounds — the MIME reader positioned at a boundary, the root
 * part's byte limit, the parsed {@code Header} with its fields still unchecked, and the gate's
 * verdict that decides whether the next part is read into a typed array, read as raw bytes or passed
 * over without allocation; the XML pass itself asks the gate when {@code m:payload} starts and narrows
 * the stream's bound from the answer. A single store and a batch differ only in how often they go
 * round this loop. Split along the header/payload line, each half would have to hand the other the half-read
 * stream and the not-yet-admitted header, which is exactly the ordering (admit before allocate) this
 * reader exists to keep visible in one place; the pieces that stand alone already live elsewhere
 * ({@link MimeInput}, {@link MediaType}, {@link CanonicalStoreHeader}, {@link Payload}).
 */
public final class StoreMessageReader {
    /** Largest SOAP root part accepted before the gate (the envelope without the payload is a few hundred bytes). */
    private static final int MAX_ROOT_BYTES = 1024 * 1024;

    private StoreMessageReader() {
    }

    /** A decoded store request. */
    public record StoreRequest(String operation, Envelope envelope) {
    }

    /** Admission of a store from its header, before its payload is read. */
    @FunctionalInterface
    public interface Gate {
        /** Admits everything (tests, tools). */
        Gate OPEN = (operation, header, maxPayloadBytes) -> maxPayloadBytes;

        /**
         * @param header          the header; its payload is {@code null}
         * @param maxPayloadBytes the announced payload length ({@code m:length}), else an upper bound
         *                        of it (the body's length, or {@link Long#MAX_VALUE} when unknown)
         * @return the most payload bytes the reader may then read (at most {@code maxPayloadBytes}),
         *         or a negative number to refuse: the reading ends with {@link RefusedStoreException}
         */
        long admit(String operation, Envelope header, long maxPayloadBytes);
    }

    /** The request is not a well-formed store message (answered with a Sender fault). */
    public static class MalformedStoreException extends IOException {
        private static final long serialVersionUID = 1L;

        public MalformedStoreException(String message) {
            super(message);
        }

        public MalformedStoreException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** The gate refused the store; the rest of the body is unread (the gate's owner answers). */
    public static final class RefusedStoreException extends IOException {
        private static final long serialVersionUID = 1L;

        RefusedStoreException() {
            super("store refused before its payload was read");
        }
    }

    /** Parses a request body with every store admitted (see {@link #read(String, InputStream, long, Gate)}). */
    public static StoreRequest read(String contentType, InputStream body, long contentLength) throws IOException {
        return read(contentType, body, contentLength, Gate.OPEN);
    }

    /**
     * Parses a request body.
     *
     * @param contentType   the HTTP {@code Content-Type}
     * @param body          the HTTP entity stream (not closed here)
     * @param contentLength the HTTP content length, or -1; bounds the parts
     * @param gate          asked once, after the header and before any payload byte is allocated
     * @throws RefusedStoreException if the gate refused
     */
    public static StoreRequest read(String contentType, InputStream body, long contentLength, Gate gate) throws IOException {
        MediaType mt = MediaType.parse(contentType);
        long max = contentLength > 0 ? contentLength : Long.MAX_VALUE;
        if (mt.type().equals("multipart/related")) {
            return readMultipart(mt, body, max, gate);
        }
        if (mt.type().equals("application/soap+xml")) {
            // the header must come within MAX_ROOT_BYTES; the gate then lifts the bound to the admitted size
            BoundedInput in = new BoundedInput(body, MAX_ROOT_BYTES);
            Header h = parseRoot(in, gate, max, in);
            if (h.href != null) {
                throw new MalformedStoreException("xop:Include outside an MTOM package");
            }
            return finish(h, decodeInline(h));
        }
        throw new MalformedStoreException("unsupported content type for a SOAP 1.2 store: " + contentType);
    }

    /** An MTOM package opened: its part reader after the root part, the delimiter, and the root part's bytes. */
    private record Opened(MimeInput in, byte[] delimiter, byte[] root) {
    }

    /**
     * Reads an MTOM package up to the end of its root part (at most {@value #MAX_ROOT_BYTES} bytes),
     * which must be the first part (and the {@code start} one, if the content type names it).
     */
    private static Opened open(MediaType mt, InputStream body) throws IOException {
        String boundary = mt.param("boundary");
        if (boundary == null || boundary.isEmpty()) {
            throw new MalformedStoreException("multipart/related without a boundary");
        }
        byte[] delimiter = ("\r\n--" + boundary).getBytes(StandardCharsets.ISO_8859_1);
        String dashBoundary = "--" + boundary;
        MimeInput in = new MimeInput(body);
        // preamble, then the first boundary line
        for (int lines = 0; ; lines++) {
            String line = in.readLine();
            if (line.trim().equals(dashBoundary)) {
                break;
            }
            if (lines > 100) {
                throw new MalformedStoreException("no MIME boundary found");
            }
        }
        PartHeaders rootHeaders = readPartHeaders(in);
        String start = mt.param("start");
        if (start != null && rootHeaders.contentId != null && !stripAngles(start).equals(rootHeaders.contentId)) {
            throw new MalformedStoreException("the SOAP root part must come first in the MTOM package");
        }
        try {
            return new Opened(in, delimiter, in.readUntil(delimiter, MAX_ROOT_BYTES));
        } catch (java.io.EOFException e) {
            throw e;
        } catch (IOException e) {
            throw new MalformedStoreException("SOAP root part larger than " + MAX_ROOT_BYTES + " bytes");
        }
    }

    private static StoreRequest readMultipart(MediaType mt, InputStream body, long max, Gate gate) throws IOException {
        Opened opened = open(mt, body);
        MimeInput in = opened.in();
        byte[] delimiter = opened.delimiter();
        byte[] root = opened.root();
        Header h = canonical(root);
        if (h == null) {
            h = parseRoot(new ByteArrayInputStream(root), Gate.OPEN, max, null);
        }
        if (h.href == null) {
            // the payload is inline in the root part, which is read already (bounded above)
            admit(gate, h, h.inline == null ? 0 : h.inline.length() * 3L / 4);
            return finish(h, decodeInline(h));
        }
        long bound = admit(gate, h, h.length >= 0 ? h.length : max);
        String wanted = cid(h.href);
        for (;;) {
            if (in.consumeIf(new byte[] {'-', '-'})) {
                throw new MalformedStoreException("MTOM package has no part " + h.href);
            }
            in.readLine(); // rest of the boundary line (CRLF, maybe transport padding)
            PartHeaders ph = readPartHeaders(in);
            if (!wanted.equals(ph.contentId)) {
                in.readUntil(delimiter, bound); // an unrelated part: skip it (bounded by what was admitted)
                continue;
            }
            Payload.Type type = h.type;
            if (h.length >= 0 && isArray(type)) {
                if (h.length > bound) {
                    throw new MalformedStoreException("payload of " + h.length + " bytes over the admitted " + bound);
                }
                Object value = readArray(in, type, h.length);
                if (!in.consumeIf(delimiter)) {
                    throw new MalformedStoreException("payload part is not " + h.length + " bytes long as m:length says");
                }
                return finish(h, Payload.of(value));
            }
            byte[] raw = in.readUntil(delimiter, bound);
            return finish(h, Payload.decode(type, raw));
        }
    }

    /** Most entries one {@code storeBatch} may carry (the sender's default is 64). */
    public static final int MAX_BATCH_ENTRIES = 1024;

    /**
     * What the reader of a {@code storeBatch} asks and tells its owner, entry by entry, in order.
     */
    public interface BatchHandler {
        /**
         * Admission of entry {@code index} from its header, before its payload is read: as
         * {@link Gate#admit}; negative refuses it (its outcome is the handler's to record).
         */
        long admit(int index, String operation, Envelope header, long maxPayloadBytes);

        /**
         * After a refusal of entry {@code index}: whether the reader may pass over its attachment
         * (read and dropped, nothing allocated) and go on with the next entry. Only for a sender
         * that proved the domain token; otherwise the reading stops there.
         */
        boolean passOverRefused(int index);

        /** Entry {@code index} was admitted and read. */
        void accept(int index, StoreRequest request);
    }

    /**
     * How far a batch was read.
     *
     * @param entries   how many entries the root part lists
     * @param processed how many were admitted and read, or refused; fewer than {@code entries}
     *                  when the reading stopped at a refusal the handler did not let it pass over
     */
    public record BatchResult(int entries, int processed) {
    }

    /**
     * Reads a {@code storeBatch} MTOM package ({@code docs/wire-format.md}, "Batched stores"): the
     * root part (at most {@value #MAX_ROOT_BYTES} bytes, at most {@value #MAX_BATCH_ENTRIES}
     * entries) is parsed first; then, entry by entry, the header is admitted through the handler
     * and only then is that entry's attachment — which must be the next part — read (or passed
     * over without allocation when refused).
     *
     * @throws MalformedStoreException if the package is not a well-formed batch; entries handed to
     *                                 the handler before that stay handed over
     */
    public static BatchResult readBatch(String contentType, InputStream body, long contentLength, BatchHandler handler)
            throws IOException {
        MediaType mt = MediaType.parse(contentType);
        if (!mt.type().equals("multipart/related")) {
            throw new MalformedStoreException("a storeBatch must be an MTOM package (multipart/related), not " + contentType);
        }
        long max = contentLength > 0 ? contentLength : Long.MAX_VALUE;
        Opened opened = open(mt, body);
        MimeInput in = opened.in();
        byte[] delimiter = opened.delimiter();
        byte[] root = opened.root();
        java.util.List<Header> entries = parseBatchRoot(root, max);
        for (int i = 0; i < entries.size(); i++) {
            Header h = entries.get(i);
            if (h.operation == null || h.domainId == null || h.kind == null) {
                throw new MalformedStoreException("entry " + i + " of the batch lacks domainId or kind");
            }
            Envelope header = new Envelope(h.domainId, h.context, h.from, h.to, h.tag, h.seq, h.kind, h.proof, null);
            long announced = h.href == null ? (h.inline == null ? 0 : h.inline.length() * 3L / 4)
                    : (h.length >= 0 ? h.length : max);
            long bound = handler.admit(i, h.operation, header, announced);
            boolean refused = bound < 0;
            if (refused && !handler.passOverRefused(i)) {
                return new BatchResult(entries.size(), i);
            }
            bound = Math.min(bound, announced);
            if (h.href == null) {
                if (!refused) {
                    handler.accept(i, finish(h, decodeInline(h)));
                }
                continue;
            }
            if (in.consumeIf(new byte[] {'-', '-'})) {
                throw new MalformedStoreException("the batch has no attachment for entry " + i);
            }
            in.readLine(); // rest of the boundary line
            PartHeaders ph = readPartHeaders(in);
            if (!cid(h.href).equals(ph.contentId)) {
                throw new MalformedStoreException("entry " + i + " of the batch references " + h.href
                        + " but the next part is <" + ph.contentId + ">: attachments must follow in the order of their entries");
            }
            if (refused) {
                in.skipUntil(delimiter, h.length >= 0 ? h.length : max);
                continue;
            }
            if (h.length >= 0 && isArray(h.type)) {
                Object value = readArray(in, h.type, h.length);
                if (!in.consumeIf(delimiter)) {
                    throw new MalformedStoreException("payload of entry " + i + " is not " + h.length + " bytes long as m:length says");
                }
                handler.accept(i, finish(h, Payload.of(value)));
            } else {
                byte[] raw = in.readUntil(delimiter, bound);
                handler.accept(i, finish(h, Payload.decode(h.type, raw)));
            }
        }
        return new BatchResult(entries.size(), entries.size());
    }

    /** The entries of a batch's root part (header fields only; nothing admitted yet). */
    private static java.util.List<Header> parseBatchRoot(byte[] root, long max) throws IOException {
        java.util.List<Header> entries = new java.util.ArrayList<>();
        try {
            XMLStreamReader r = Xml.reader(new ByteArrayInputStream(root));
            try {
                int depth = 0;
                boolean inBody = false;
                boolean inBatch = false;
                Header h = null;
                while (r.hasNext()) {
                    int ev = r.next();
                    if (ev == XMLStreamConstants.START_ELEMENT) {
                        depth++;
                        String ns = r.getNamespaceURI();
                        String local = r.getLocalName();
                        if (depth == 1) {
                            checkEnvelope(ns, local);
                        } else if (depth == 2) {
                            inBody = enterBody(r, ns, local);
                            if (!inBody) {
                                depth--;
                            }
                        } else if (depth == 3) {
                            if (!MpiwsNames.NS.equals(ns) || !local.equals(MpiwsNames.OP_STORE_BATCH)) {
                                throw new MalformedStoreException("body is not an MPIWS storeBatch: {" + ns + "}" + local);
                            }
                            inBatch = true;
                        } else if (depth == 4 && inBatch) {
                            if (!MpiwsNames.NS.equals(ns)
                                    || !(local.equals(MpiwsNames.OP_STORE) || local.equals(MpiwsNames.OP_BSTORE))) {
                                throw new MalformedStoreException("a storeBatch entry must be a store or bstore, not {" + ns + "}" + local);
                            }
                            if (entries.size() == MAX_BATCH_ENTRIES) {
                                throw new MalformedStoreException("a storeBatch carries at most " + MAX_BATCH_ENTRIES + " entries");
                            }
                            h = new Header();
                            h.operation = local;
                            h.max = max;
                            entries.add(h);
                        } else if (depth == 5 && h != null) {
                            field(r, h, ns, local);
                            depth--;
                        } else {
                            skip(r);
                            depth--;
                        }
                    } else if (ev == XMLStreamConstants.END_ELEMENT) {
                        if (depth == 4) {
                            h = null;
                        }
                        depth--;
                    }
                }
            } finally {
                r.close();
            }
        } catch (XMLStreamException | IllegalArgumentException e) {
            throw parseFailure(e, "storeBatch");
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        if (entries.isEmpty()) {
            throw new MalformedStoreException("a storeBatch without entries");
        }
        return entries;
    }

    /** Asks the gate about a complete header; returns the payload bound it admitted. */
    private static long admit(Gate gate, Header h, long maxPayloadBytes) throws IOException {
        if (h.operation == null || h.domainId == null || h.kind == null) {
            throw new MalformedStoreException("store message lacks domainId or kind");
        }
        Envelope header = new Envelope(h.domainId, h.context, h.from, h.to, h.tag, h.seq, h.kind, h.proof, null);
        long bound = gate.admit(h.operation, header, maxPayloadBytes);
        if (bound < 0) {
            throw new RefusedStoreException();
        }
        return Math.min(bound, maxPayloadBytes);
    }

    /** An input stream that fails once more than its current limit has been read. */
    private static final class BoundedInput extends java.io.FilterInputStream {
        private long limit;
        private long count;

        BoundedInput(InputStream in, long limit) {
            super(in);
            this.limit = limit;
        }

        void limit(long newLimit) {
            limit = newLimit;
        }

        private void counted(long n) throws IOException {
            if (n > 0) {
                count += n;
                if (count > limit) {
                    throw new MalformedStoreException("store message larger than " + limit + " bytes at this point");
                }
            }
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            counted(b < 0 ? 0 : 1);
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            counted(n);
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            long k = super.skip(n);
            counted(k);
            return k;
        }

        @Override
        public boolean markSupported() {
            return false;
        }
    }

    private static boolean isArray(Payload.Type t) {
        return t == Payload.Type.DOUBLE_ARRAY || t == Payload.Type.INT_ARRAY || t == Payload.Type.LONG_ARRAY
                || t == Payload.Type.BYTES;
    }

    private static Object readArray(MimeInput in, Payload.Type type, long length) throws IOException {
        if (length > Integer.MAX_VALUE - 16) {
            throw new MalformedStoreException("payload too large: " + length + " bytes");
        }
        int n = (int) length;
        switch (type) {
            case DOUBLE_ARRAY -> {
                check(n, Double.BYTES);
                double[] a = new double[n / Double.BYTES];
                in.readDoubles(a);
                return a;
            }
            case LONG_ARRAY -> {
                check(n, Long.BYTES);
                long[] a = new long[n / Long.BYTES];
                in.readLongs(a);
                return a;
            }
            case INT_ARRAY -> {
                check(n, Integer.BYTES);
                int[] a = new int[n / Integer.BYTES];
                in.readInts(a);
                return a;
            }
            default -> {
                byte[] a = new byte[n];
                in.readFully(a);
                return a;
            }
        }
    }

    private static void check(int length, int unit) throws MalformedStoreException {
        if (length % unit != 0) {
            throw new MalformedStoreException("payload length " + length + " is not a multiple of " + unit);
        }
    }

    private static Payload decodeInline(Header h) {
        byte[] raw = h.inline == null ? new byte[0] : Base64.getMimeDecoder().decode(h.inline);
        return Payload.decode(h.type, raw);
    }

    private static StoreRequest finish(Header h, Payload payload) throws MalformedStoreException {
        if (h.operation == null || h.domainId == null || h.kind == null) {
            throw new MalformedStoreException("store message lacks domainId or kind");
        }
        Envelope e = new Envelope(h.domainId, h.context, h.from, h.to, h.tag, h.seq, h.kind, h.proof, payload);
        return new StoreRequest(h.operation, e);
    }

    private static final class PartHeaders {
        String contentId;
        String contentType;
    }

    private static PartHeaders readPartHeaders(MimeInput in) throws IOException {
        PartHeaders ph = new PartHeaders();
        for (int n = 0; ; n++) {
            String line = in.readLine();
            if (line.isEmpty()) {
                return ph;
            }
            if (n > 100) {
                throw new MalformedStoreException("too many MIME part headers");
            }
            int colon = line.indexOf(':');
            if (colon <= 0) {
                continue;
            }
            String name = line.substring(0, colon).trim();
            String value = line.substring(colon + 1).trim();
            if (name.equalsIgnoreCase("Content-ID")) {
                ph.contentId = stripAngles(value);
            } else if (name.equalsIgnoreCase("Content-Type")) {
                ph.contentType = value;
            }
        }
    }

    private static String stripAngles(String s) {
        s = s.trim();
        if (s.startsWith("<") && s.endsWith(">")) {
            return s.substring(1, s.length() - 1);
        }
        return s;
    }

    private static String cid(String href) {
        String s = href.trim();
        if (s.regionMatches(true, 0, "cid:", 0, 4)) {
            s = s.substring(4);
        }
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }

    /** The header fields of the store element. */
    private static final class Header {
        String operation;
        String domainId;
        int context;
        int from;
        int to;
        int tag;
        long seq;
        Envelope.Kind kind;
        byte[] proof = new byte[0];
        Payload.Type type = Payload.Type.BYTES;
        long length = -1;
        String href;
        String inline;
        /** Asked when the payload starts (plain SOAP) or after the root part (MTOM). */
        Gate gate = Gate.OPEN;
        long max = Long.MAX_VALUE;
        BoundedInput bounded;
        boolean admitted;
    }

    /** The header from the canonical layout, or {@code null} (then the XML parser reads it). */
    private static Header canonical(byte[] root) throws MalformedStoreException {
        String[] f = CanonicalStoreHeader.tryParse(root);
        if (f == null) {
            return null;
        }
        try {
            Header h = new Header();
            h.domainId = f[0].trim();
            h.context = Integer.parseInt(f[1]);
            h.from = Integer.parseInt(f[2]);
            h.to = Integer.parseInt(f[3]);
            h.tag = Integer.parseInt(f[4]);
            h.seq = Long.parseLong(f[5]);
            h.kind = Envelope.Kind.valueOf(f[6]);
            h.proof = Base64.getMimeDecoder().decode(f[7]);
            h.type = Payload.Type.valueOf(f[8]);
            h.length = Long.parseLong(f[9]);
            h.operation = f[10];
            h.href = f[11];
            return h;
        } catch (IllegalArgumentException e) {
            throw new MalformedStoreException("bad store message: " + e.getMessage(), e);
        }
    }

    /**
     * Parses a SOAP root; when the {@code m:payload} element starts, the header fields before it are
     * complete and the gate is asked (then {@code bounded}, if given, gets the admitted bound: base64
     * text is 4/3 of its bytes, plus the envelope's tail).
     */
    private static Header parseRoot(InputStream xml, Gate gate, long max, BoundedInput bounded) throws IOException {
        Header h = new Header();
        h.gate = gate;
        h.max = max;
        h.bounded = bounded;
        try {
            XMLStreamReader r = Xml.reader(xml);
            try {
                int depth = 0;
                boolean inBody = false;
                while (r.hasNext()) {
                    int ev = r.next();
                    if (ev == XMLStreamConstants.START_ELEMENT) {
                        depth++;
                        String ns = r.getNamespaceURI();
                        String local = r.getLocalName();
                        if (depth == 1) {
                            checkEnvelope(ns, local);
                        } else if (depth == 2) {
                            inBody = enterBody(r, ns, local);
                            if (!inBody) {
                                depth--;
                            }
                        } else if (depth == 3 && inBody) {
                            if (!MpiwsNames.NS.equals(ns)
                                    || !(local.equals(MpiwsNames.OP_STORE) || local.equals(MpiwsNames.OP_BSTORE))) {
                                throw new MalformedStoreException("body is not an MPIWS store or bstore: {" + ns + "}" + local);
                            }
                            h.operation = local;
                        } else if (depth == 4 && h.operation != null) {
                            field(r, h, ns, local);
                            depth--;
                        } else {
                            skip(r);
                            depth--;
                        }
                    } else if (ev == XMLStreamConstants.END_ELEMENT) {
                        depth--;
                    }
                }
            } finally {
                r.close();
            }
        } catch (XMLStreamException | IllegalArgumentException e) {
            throw parseFailure(e, "store");
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        if (!h.admitted && h.operation != null) {
            admit(gate, h, 0); // no payload element at all: an empty payload
        }
        return h;
    }

    /** A SOAP root's document element must be a SOAP 1.2 envelope. */
    private static void checkEnvelope(String ns, String local) throws MalformedStoreException {
        if (!MpiwsNames.SOAP12_NS.equals(ns) || !local.equals("Envelope")) {
            throw new MalformedStoreException("not a SOAP 1.2 envelope: {" + ns + "}" + local);
        }
    }

    /** Whether an envelope's child is its body; any other child (a SOAP header) is skipped, the reader on its END_ELEMENT. */
    private static boolean enterBody(XMLStreamReader r, String ns, String local) throws XMLStreamException {
        boolean body = MpiwsNames.SOAP12_NS.equals(ns) && local.equals("Body");
        if (!body) {
            skip(r);
        }
        return body;
    }

    /**
     * What a failed parse of a root part means: the gate's refusal or the bound, which the parser
     * carries as the cause, else a malformed {@code operation} message.
     */
    private static IOException parseFailure(Exception e, String operation) {
        if (e.getCause() instanceof IOException io) {
            return io;
        }
        return new MalformedStoreException("bad " + operation + " message: " + e.getMessage(), e);
    }

    /** Reads one child of the store element; the reader ends on its END_ELEMENT. */
    private static void field(XMLStreamReader r, Header h, String ns, String local) throws XMLStreamException {
        if (!MpiwsNames.NS.equals(ns)) {
            skip(r);
            return;
        }
        if (local.equals("payload")) {
            try {
                long bound = admit(h.gate, h, h.length >= 0 ? h.length : h.max);
                h.admitted = true;
                if (h.bounded != null) {
                    long text = bound >= Long.MAX_VALUE / 2 ? Long.MAX_VALUE / 2 : bound * 4 / 3 + 4;
                    h.bounded.limit(MAX_ROOT_BYTES + text + MAX_ROOT_BYTES);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            StringBuilder text = new StringBuilder();
            int depth = 1;
            while (depth > 0) {
                int ev = r.next();
                if (ev == XMLStreamConstants.START_ELEMENT) {
                    depth++;
                    if (MpiwsNames.XOP_NS.equals(r.getNamespaceURI()) && r.getLocalName().equals("Include")) {
                        h.href = r.getAttributeValue(null, "href");
                    }
                } else if (ev == XMLStreamConstants.END_ELEMENT) {
                    depth--;
                } else if (ev == XMLStreamConstants.CHARACTERS || ev == XMLStreamConstants.CDATA) {
                    text.append(r.getText());
                }
            }
            h.inline = text.toString().trim();
            return;
        }
        String v = r.getElementText().trim();
        switch (local) {
            case "domainId" -> h.domainId = v;
            case "context" -> h.context = Integer.parseInt(v);
            case "from" -> h.from = Integer.parseInt(v);
            case "to" -> h.to = Integer.parseInt(v);
            case "tag" -> h.tag = Integer.parseInt(v);
            case "seq" -> h.seq = Long.parseLong(v);
            case "kind" -> h.kind = Envelope.Kind.valueOf(v);
            case "proof" -> h.proof = Base64.getMimeDecoder().decode(v);
            case "type" -> h.type = Payload.Type.valueOf(v);
            case "length" -> h.length = Long.parseLong(v);
            default -> { }
        }
    }

    private static void skip(XMLStreamReader r) throws XMLStreamException {
        int depth = 1;
        while (depth > 0) {
            int ev = r.next();
            if (ev == XMLStreamConstants.START_ELEMENT) {
                depth++;
            } else if (ev == XMLStreamConstants.END_ELEMENT) {
                depth--;
            }
        }
    }
}
