package org.mpfl.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import javax.xml.stream.XMLStreamException;
import org.junit.jupiter.api.Test;

/**
 * Each rank's site (and its host's relay) travels in the endpoint table of {@code run}, so the runtime
 * can group ranks by site and ask a host behind a relay for a reverse connection.
 */
class RunMessagesSiteTest {
    static RunRequest request(List<Endpoint> endpoints) {
        return new RunRequest("d1", 0, endpoints, List.of(new RunRequest.ProcessSlice("p", "svc", endpoints.size())), Map.of(),
                "token", null, null, null);
    }

    @Test
    void sitesOfTheEndpointsSurviveTheRunMessageAndTheDefaultSiteIsLeftOut() throws Exception {
        List<Endpoint> endpoints = List.of(new Endpoint("http://a:1/s/svc", null, "h1", "alpha"),
                new Endpoint("http://b:1/s/svc", "b:2", "h2", "beta"), new Endpoint("http://c:1/s/svc", null, "h3"));
        String xml = RunMessages.runXml(request(endpoints));
        assertEquals(endpoints, RunMessages.parseRun(xml).endpoints());
        assertEquals("default", RunMessages.parseRun(xml).endpoints().get(2).site());
        assertFalse(xml.contains("site=\"default\""), "an older host reads a table without sites: " + xml);
    }

    @Test
    void aMalformedSiteIsAMalformedRequest() throws Exception {
        String xml = RunMessages.runXml(request(List.of(new Endpoint("http://a:1/s/svc", null, "h1", "alpha"))))
                .replace("site=\"alpha\"", "site=\"a b\"");
        XMLStreamException e = assertThrows(XMLStreamException.class, () -> RunMessages.parseRun(xml));
        assertTrue(e.getMessage().contains("bad site name"), e.getMessage());
    }

    @Test
    void aHostsRelaySurvivesTheRunMessageAndNoRelayIsLeftOut() throws Exception {
        List<Endpoint> endpoints = List.of(new Endpoint("http://a:1/s/svc", "a:2", "h1", "alpha", "10.0.0.5:7070"),
                new Endpoint("http://b:1/s/svc", null, "h2", "beta"));
        String xml = RunMessages.runXml(request(endpoints));
        List<Endpoint> read = RunMessages.parseRun(xml).endpoints();
        assertEquals(endpoints, read);
        assertEquals("10.0.0.5:7070", read.get(0).relay());
        assertEquals(null, read.get(1).relay());
        assertEquals(1, xml.split("relay=", -1).length - 1, "only the relayed host's endpoint names a relay: " + xml);
    }
}
