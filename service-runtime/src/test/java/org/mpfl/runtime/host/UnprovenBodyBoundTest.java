package org.mpfl.runtime.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.Endpoint;
import org.mpfl.protocol.HostCredential;
import org.mpfl.protocol.MpiwsClient;
import org.mpfl.protocol.RankStatus;
import org.mpfl.protocol.RunRequest;
import org.mpfl.runtime.topology.CollectiveCommunicator;
import org.mpfl.runtime.p2p.RankInstance;
import org.mpfl.runtime.transport.Envelope;
import org.mpfl.runtime.transport.Payload;
import org.mpfl.testing.Await;
import org.mpfl.testing.attack.EndlessElement;
import org.mpfl.protocol.MpiwsNames;
import org.mpfl.protocol.RunMessages;

/**
 * The attack: a caller with no credential at all sends a SOAP request on the host's Axis2 path — {@code status} and
 * {@code abort}, which anyone may call, and a {@code store} without its SOAP action — whose one element's text never
 * ends. Axis2's object model reads an element's whole text into memory ({@code status} and {@code abort} serialise
 * their request, a store's fields are read before its header is admitted), so the host held whatever was sent: within
 * a stranger's 5 s deadline from another machine, and without any deadline from a known address (here loopback). Now
 * such a body is read only up to {@code mpfl.host.unprovenBodyBytes} (1 MiB) and the connection is then closed; the
 * host goes on answering.
 */
@Timeout(120)
class UnprovenBodyBoundTest {
    private static final String TYPE = "Bounded";
    /** What the attacker pushes at most; far more than the bound and the sockets' buffers together. */
    private static ServiceHost host;
    /** The host serves an engine: a caller on its own machine without the engine's key is a stranger too. */
    private static final HostCredential CREDENTIAL = HostCredential.generate("http://127.0.0.1:1", "h");

    @BeforeAll
    static void startHost() throws Exception {
        host = ServiceHost.start(ServiceHost.Options.loopback());
        host.setCredential(CREDENTIAL);
        host.registerServiceType(TYPE, () -> ctx -> ctx.output("length", String.valueOf(ctx.params().get("big")).length()));
    }

    @AfterAll
    static void stopHost() {
        if (host != null) {
            host.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"status", "abort", "store without its action"})
    void anEndlessElementFromACallerWithoutCredentialIsCutOff(String operation) throws Exception {
        URI url = URI.create(host.serviceUrl(TYPE));
        long pushed = EndlessElement.push(url, operation.split(" ")[0], !operation.contains("without"), EndlessElement.PUSHED);
        assertTrue(pushed < EndlessElement.CUT_OFF, operation + ": the host read " + (pushed >> 20) + " MB of one element from a caller "
                + "without any credential and had not closed the connection");
        // and it goes on answering
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(20))
                .header("Content-Type", "application/soap+xml; charset=UTF-8; action=\"" + MpiwsNames.action(MpiwsNames.OP_STATUS) + "\"")
                .POST(HttpRequest.BodyPublishers.ofString(MpiwsNames.envelope(RunMessages.statusXml(DomainToken.generate(), 0)))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
    }

    /**
     * The bound judges no header, but HTTP/2 would let a body come without one: the host speaks HTTP/1.1 only (Axis2's
     * HttpCore 5 classic server). A client asking for h2c (the JDK's does, by an upgrade) is answered in HTTP/1.1, and
     * HTTP/2's connection preface sent with prior knowledge gets no HTTP/2 frame back.
     */
    @Test
    void theHostSpeaksNoHttp2() throws Exception {
        URI url = URI.create(host.serviceUrl(TYPE));
        HttpResponse<String> r = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build().send(
                HttpRequest.newBuilder(URI.create(url + "?wsdl")).timeout(Duration.ofSeconds(20)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(HttpClient.Version.HTTP_1_1, r.version(), "no h2c upgrade");
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(url.getHost(), url.getPort()), 10_000);
            s.setSoTimeout(20_000);
            s.getOutputStream().write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            byte[] answer = s.getInputStream().readNBytes(8);
            String text = new String(answer, StandardCharsets.ISO_8859_1);
            // an HTTP/2 server's first frame is its SETTINGS (type 4 in the frame header's fourth byte)
            assertTrue(answer.length == 0 || text.startsWith("HTTP/1."), "an HTTP/2 answer to the preface: " + Arrays.toString(answer));
        }
    }

    /** The engine's own calls are not bounded: a {@code run} with 4 MB of parameters is taken with the engine's key. */
    @Test
    void theEnginesRunWithALargeRequestIsTaken() throws Exception {
        String url = host.serviceUrl(TYPE);
        String domain = DomainToken.generate();
        String token = DomainToken.generate();
        MpiwsClient client = new MpiwsClient(Duration.ofSeconds(30));
        client.run(url, new RunRequest(domain, 0, List.of(host.endpoint(TYPE)), List.of(), Map.of("big", "b".repeat(4 << 20)),
                token, null, "soap"), HostCredential.engineAuthorization(CREDENTIAL.engineKey()));
        RankStatus s = Await.until(Duration.ofSeconds(60), "the rank ends",
                () -> client.status(url, domain, 0, new DomainToken(token).proveStatus(domain, 0)), RankStatus::isFinal);
        assertEquals("done", s.state(), s.toString());
        assertTrue(s.toString().contains("length=" + (4 << 20)), s.toString());
    }

    /**
     * A store on the Axis2 path (no SOAP action) with its payload inline, as base64, 3 MB: its header comes before the
     * payload (the WSDL's order), so its proof is checked before the payload is read — which lifts the bound — and it
     * is delivered. (Before, the whole inline payload was read before the header was admitted.)
     */
    @Test
    void aProvedStoreWithoutItsActionIsReadPastTheBound() throws Exception {
        String domain = DomainToken.generate();
        String token = DomainToken.generate();
        List<Endpoint> eps = List.of(host.endpoint(TYPE), host.endpoint(TYPE));
        RankInstance r = host.registry().open(domain, 1, token, eps, host.selector(), "soap");
        try {
            byte[] value = new byte[3 << 20];
            Arrays.fill(value, (byte) 7);
            Payload p = Payload.of(value);
            byte[] proof = new DomainToken(token).prove(domain, 0, 0, 1, 7, 0, Envelope.Kind.DATA.ordinal());
            String xml = MpiwsNames.envelope("<m:store xmlns:m=\"" + MpiwsNames.NS + "\"><m:domainId>" + domain
                    + "</m:domainId><m:context>0</m:context><m:from>0</m:from><m:to>1</m:to><m:tag>7</m:tag><m:seq>0</m:seq>"
                    + "<m:kind>DATA</m:kind><m:proof>" + Base64.getEncoder().encodeToString(proof) + "</m:proof><m:type>"
                    + p.type() + "</m:type><m:payload>" + Base64.getEncoder().encodeToString(p.encode()) + "</m:payload></m:store>");
            HttpResponse<String> a = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(host.serviceUrl(TYPE)))
                    .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/soap+xml; charset=UTF-8")
                    .POST(HttpRequest.BodyPublishers.ofString(xml)).build(), HttpResponse.BodyHandlers.ofString());
            assertTrue(a.statusCode() / 100 == 2, a.statusCode() + " " + a.body());
            Object got = CollectiveCommunicator.world(r).recv(0, 7, Duration.ofSeconds(10)).value();
            assertTrue(Arrays.equals(value, (byte[]) got), "the payload as sent");
        } finally {
            r.close();
        }
    }
}
