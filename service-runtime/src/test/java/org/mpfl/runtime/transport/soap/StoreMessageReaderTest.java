package org.mpfl.runtime.transport.soap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.mpfl.protocol.MpiwsNames;
import org.mpfl.runtime.transport.Envelope;
import org.mpfl.runtime.transport.Payload;

/**
 * The lean store reader: the canonical layout and other valid SOAP 1.2 layouts (other prefixes,
 * whitespace, inline base64) give the same envelope; DTDs, wrong lengths and non-SOAP bodies are
 * refused.
 */
class StoreMessageReaderTest {
    private static final String BOUNDARY = "MIMEBoundary_test_1";
    private static final Envelope E = new Envelope("dom&<ain", 3, 1, 2, 9, 42, Envelope.Kind.SYNC_DATA,
            new byte[] {1, 2, 3, 4}, Payload.of(new double[] {1.5, -2.25, 1e300}));

    private static String contentType() {
        return "multipart/related; boundary=\"" + BOUNDARY + "\"; type=\"application/xop+xml\"; start=\"<"
                + StoreMessageWriter.ROOT_CID + ">\"; start-info=\"application/soap+xml\"; action=\"urn:mpfl:mpiws:store\"";
    }

    private static byte[] canonicalBody(Envelope e) throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        byte[] payload = e.payload().encode();
        b.write(StoreMessageWriter.head(BOUNDARY, MpiwsNames.action("store"), "store", e, e.payload().type(), payload.length));
        b.write(payload);
        b.write(("\r\n--" + BOUNDARY + "--\r\n").getBytes(StandardCharsets.US_ASCII));
        return b.toByteArray();
    }

    private static void assertSame(Envelope expected, Envelope got) {
        assertEquals(expected.domainId(), got.domainId());
        assertEquals(expected.context(), got.context());
        assertEquals(expected.from(), got.from());
        assertEquals(expected.to(), got.to());
        assertEquals(expected.tag(), got.tag());
        assertEquals(expected.seq(), got.seq());
        assertEquals(expected.kind(), got.kind());
        assertArrayEquals(expected.proof(), got.proof());
        assertArrayEquals((double[]) expected.payload().value(), (double[]) got.payload().value());
    }

    @Test
    void canonicalLayout() throws Exception {
        Envelope plain = new Envelope("domain-1", 3, 1, 2, 9, 42, Envelope.Kind.DATA, new byte[] {7},
                Payload.of(new double[] {3.0, 4.0}));
        byte[] body = canonicalBody(plain);
        assertNotNull(CanonicalStoreHeader.tryParse(rootOf(body)), "the writer's own layout is canonical");
        StoreMessageReader.StoreRequest r = StoreMessageReader.read(contentType(), new ByteArrayInputStream(body), body.length);
        assertEquals("store", r.operation());
        assertSame(plain, r.envelope());
    }

    @Test
    void escapedTextGoesThroughTheXmlParser() throws Exception {
        byte[] body = canonicalBody(E);
        assertNull(CanonicalStoreHeader.tryParse(rootOf(body)));
        assertSame(E, StoreMessageReader.read(contentType(), new ByteArrayInputStream(body), body.length).envelope());
    }

    @Test
    void otherPrefixesAndWhitespaceAreTheSameMessage() throws Exception {
        String body = new String(canonicalBody(E), StandardCharsets.ISO_8859_1)
                .replace("<m:", "\n  <mp:").replace("</m:", "</mp:").replace("xmlns:m=", "xmlns:mp=")
                .replace("<s:", "<soap:").replace("</s:", "</soap:").replace("xmlns:s=", "xmlns:soap=");
        byte[] bytes = body.getBytes(StandardCharsets.ISO_8859_1);
        assertSame(E, StoreMessageReader.read(contentType(), new ByteArrayInputStream(bytes), bytes.length).envelope());
    }

    @Test
    void inlineBase64WithoutAttachments() throws Exception {
        String xml = "<?xml version=\"1.0\"?><e:Envelope xmlns:e=\"" + MpiwsNames.SOAP12_NS + "\"><e:Body>"
                + "<store xmlns=\"" + MpiwsNames.NS + "\"><domainId>d</domainId><context>0</context><from>1</from>"
                + "<to>0</to><tag>5</tag><seq>0</seq><kind>DATA</kind><proof>AQI=</proof><type>DOUBLE_ARRAY</type>"
                + "<payload>" + Base64.getEncoder().encodeToString(Payload.of(new double[] {6.5}).encode())
                + "</payload></store></e:Body></e:Envelope>";
        byte[] b = xml.getBytes(StandardCharsets.UTF_8);
        Envelope e = StoreMessageReader.read("application/soap+xml; action=\"urn:mpfl:mpiws:store\"",
                new ByteArrayInputStream(b), b.length).envelope();
        assertArrayEquals(new double[] {6.5}, (double[]) e.payload().value());
        assertArrayEquals(new byte[] {1, 2}, e.proof());
    }

    @Test
    void doctypesAreRefused() {
        String xml = "<?xml version=\"1.0\"?><!DOCTYPE e [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>"
                + "<e:Envelope xmlns:e=\"" + MpiwsNames.SOAP12_NS + "\"><e:Body><store xmlns=\"" + MpiwsNames.NS
                + "\"><domainId>&x;</domainId><kind>DATA</kind></store></e:Body></e:Envelope>";
        byte[] b = xml.getBytes(StandardCharsets.UTF_8);
        assertThrows(StoreMessageReader.MalformedStoreException.class,
                () -> StoreMessageReader.read("application/soap+xml", new ByteArrayInputStream(b), b.length));
    }

    @Test
    void aPayloadShorterThanAnnouncedIsRefused() throws Exception {
        String body = new String(canonicalBody(E), StandardCharsets.ISO_8859_1).replace("<m:length>24<", "<m:length>32<");
        byte[] bytes = body.getBytes(StandardCharsets.ISO_8859_1);
        assertThrows(java.io.IOException.class,
                () -> StoreMessageReader.read(contentType(), new ByteArrayInputStream(bytes), bytes.length));
    }

    @Test
    void notSoapIsRefused() {
        byte[] b = "{}".getBytes(StandardCharsets.UTF_8);
        assertThrows(StoreMessageReader.MalformedStoreException.class,
                () -> StoreMessageReader.read("application/json", new ByteArrayInputStream(b), b.length));
    }

    private static byte[] rootOf(byte[] body) {
        String s = new String(body, StandardCharsets.ISO_8859_1);
        int start = s.indexOf("<?xml");
        int end = s.indexOf("\r\n--" + BOUNDARY, start);
        return s.substring(start, end).getBytes(StandardCharsets.ISO_8859_1);
    }
}
