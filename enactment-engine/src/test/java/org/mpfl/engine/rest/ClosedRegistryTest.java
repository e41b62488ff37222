package org.mpfl.engine.rest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.Http;
import org.mpfl.engine.run.FakeRanks;

/** A closed registry wants the engine token from hosts; a server database is configured by JDBC URL. */
@Timeout(60)
class ClosedRegistryTest {
    @TempDir
    Path dir;

    @Test
    void hostsNeedTheTokenWhenTheRegistryIsClosed() throws Exception {
        try (Engine engine = Engine.start(new EngineConfig().port(0).dataDir(dir).openRegistry(false).token("fixed-token")
                .invoker(new FakeRanks(r -> { })))) {
            Map<String, Object> host = Map.of("hostId", "h", "soapUrl", "http://127.0.0.1:1/s", "services", List.of("x"));
            assertEquals(401, Http.post(engine.url() + "/api/registry/hosts", null, host).status());
            assertEquals(201, Http.post(engine.url() + "/api/registry/hosts", "fixed-token", host).status());
            assertEquals(401, Http.post(engine.url() + "/api/registry/hosts/h/heartbeat", null, "").status());
            assertEquals(204, Http.post(engine.url() + "/api/registry/hosts/h/heartbeat", "fixed-token", "").status());
            assertEquals(404, Http.post(engine.url() + "/api/registry/hosts/nobody/heartbeat", "fixed-token", "").status());
            assertEquals("fixed-token", engine.token());
        }
    }

    @Test
    void runStoreByJdbcUrl() throws Exception {
        String jdbc = "jdbc:h2:file:" + dir.resolve("server-db").toAbsolutePath();
        String id;
        try (Engine engine = Engine.start(new EngineConfig().port(0).dataDir(dir.resolve("a")).jdbc(jdbc, "sa", "")
                .invoker(new FakeRanks(r -> r.state("DONE"))))) {
            Http.post(engine.url() + "/api/registry/hosts", null, Map.of("hostId", "h", "soapUrl", "http://127.0.0.1:1/s",
                    "services", List.of("w")));
            id = Http.post(engine.url() + "/api/runs", engine.token(), Map.of("plan", Map.of("workflow", "w",
                    "processes", List.of(Map.of("name", "w", "ranks", 1))))).json().get("id").asText();
            long end = System.currentTimeMillis() + 10_000;
            while (!Http.get(engine.url() + "/api/runs/" + id).json().get("state").asText().equals("SUCCEEDED")) {
                org.junit.jupiter.api.Assertions.assertTrue(System.currentTimeMillis() < end, "run did not succeed");
                Thread.sleep(50);
            }
        }
        // another engine with another data directory but the same database sees the run
        try (Engine engine = Engine.start(new EngineConfig().port(0).dataDir(dir.resolve("b")).jdbc(jdbc, "sa", "")
                .invoker(new FakeRanks(r -> { })))) {
            assertEquals("SUCCEEDED", Http.get(engine.url() + "/api/runs/" + id).json().get("state").asText());
        }
    }
}
