package org.mpfl.engine.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.protocol.HostCredential;
import org.mpfl.runtime.host.EngineAnnouncer;
import org.mpfl.runtime.host.ServiceHost;
import org.mpfl.testing.Await;
import org.mpfl.testing.Http;

/**
 * A host says which site it is in: the site travels in its announcement, is kept in the registry entry and
 * shown by {@code GET /api/registry/hosts}; a host that names none is in site {@code default}; a malformed
 * name is refused with a message, and so is one in a host file (naming the file and line).
 */
@Timeout(60)
class HostSitesTest {
    @TempDir
    Path dir;

    @Test
    void theAnnouncedSiteIsInTheRegistryAndItsRestViewAndAHostWithoutOneIsInTheDefaultSite() throws Exception {
        try (Engine engine = Engine.start(new EngineConfig().port(0).dataDir(dir).heartbeatTimeout(Duration.ofMinutes(5)))) {
            HostCredential credential = engine.issueHostCredential("h-alpha");
            try (ServiceHost host = ServiceHost.start(new ServiceHost.Options("127.0.0.1", 0, null, credential.hostId(), null, true));
                 EngineAnnouncer announcer = new EngineAnnouncer(host, engine.url(), credential, 2, false, "alpha")) {
                announcer.start();
                Await.until(Duration.ofSeconds(30), "the host registered", () -> engine.registry().host("h-alpha").isPresent());
                assertEquals("alpha", engine.registry().host("h-alpha").orElseThrow().site());

                HostCredential plain = engine.issueHostCredential("h-plain");
                String hosts = engine.url() + "/api/registry/hosts";
                assertEquals(201, Http.send("POST", hosts, plain.authorization(),
                        Map.of("soapUrl", "http://127.0.0.1:1/s", "capacity", 1)).status());

                Map<String, Object> bad = new HashMap<>(Map.of("soapUrl", "http://127.0.0.1:2/s", "site", "../etc"));
                HostCredential other = engine.issueHostCredential("h-bad");
                Http.Answer refused = Http.send("POST", hosts, other.authorization(), bad);
                assertEquals(400, refused.status(), refused.body());
                assertTrue(refused.body().contains("bad site name"), refused.body());
                assertTrue(engine.registry().host("h-bad").isEmpty(), "a refused announcement registers nothing");

                Http.Answer list = Http.send("GET", hosts, "Bearer " + engine.token(), null);
                assertEquals(200, list.status(), list.body());
                Map<String, String> sites = new HashMap<>();
                for (JsonNode h : list.json()) {
                    sites.put(h.get("hostId").asText(), h.get("site").asText());
                }
                assertEquals(Map.of("h-alpha", "alpha", "h-plain", "default"), sites);
            }
        }
    }

    @Test
    void aHostFileLineMayNameTheSiteAndAMalformedOneIsAnErrorAtItsLine() throws IOException {
        Path file = dir.resolve("hosts");
        Files.writeString(file, "http://n1:1/s site=cluster-a\nhttp://n2:1/s\n");
        List<HostAnnouncement> entries = HostFile.read(file);
        HostRegistry registry = new HostRegistry(Duration.ofSeconds(10));
        registry.addStatic(entries);
        assertEquals("cluster-a", registry.host("http://n1:1/s").orElseThrow().site());
        assertEquals("default", registry.host("http://n2:1/s").orElseThrow().site());
        Files.writeString(file, "http://n1:1/s\nhttp://n2:1/s site=a/b\n");
        IOException e = assertThrows(IOException.class, () -> HostFile.read(file));
        assertTrue(e.getMessage().contains("hosts:2") && e.getMessage().contains("bad site name 'a/b'"), e.getMessage());
    }
}
