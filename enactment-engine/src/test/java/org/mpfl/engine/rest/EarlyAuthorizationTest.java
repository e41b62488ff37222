package org.mpfl.engine.rest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.testing.Http;
import org.mpfl.engine.run.FakeRanks;

/**
 * An anonymous mutating request is refused before its body is read (raw sockets against a real
 * engine): a client that announces 200 MB and sends none of it gets its 401 at once, where the
 * platform would otherwise wait for, and buffer, the whole body first.
 */
@Timeout(60)
class EarlyAuthorizationTest {
    @TempDir
    Path dir;

    @Test
    void anAnnouncedHugeBodyWithoutCredentialsIsRefusedUnread() throws Exception {
        try (Engine engine = Engine.start(new EngineConfig().port(0).dataDir(dir).token("admin-token").invoker(new FakeRanks(r -> { })))) {
            for (String path : List.of("/api/runs", "/api/workflows", "/api/deployments", "/api/registry/hosts",
                    "/api/registry/hosts/a/heartbeat", "/api/registry/credentials")) {
                for (String auth : new String[] {null, "Bearer wrong", "Bearer admin-tokenX"}) {
                    long t0 = System.nanoTime();
                    java.util.Map<String, String> headers = new java.util.LinkedHashMap<>(Map.of("Content-Type", "application/json"));
                    if (auth != null) {
                        headers.put("Authorization", auth);
                    }
                    String head = Http.postHeadOnly(engine.url(), path, headers, 200_000_000L, 10_000);
                    long ms = (System.nanoTime() - t0) / 1_000_000;
                    assertTrue(head.startsWith("HTTP/1.1 401"), path + " with " + auth + ": " + head);
                    // the point: refused without waiting for the body, which never comes (a wait would hang);
                    // 15 s holds on a loaded 2-core machine
                    assertTrue(ms < 15_000, path + " answered after " + ms + " ms");
                }
            }
            assertEquals(0, engine.registry().hosts().size(), "nothing registered");
            assertEquals(0, Http.get(engine.url() + "/api/runs").json().size(), "nothing started");
            // the engine token and a host's own credential still pass to the routes' own checks
            assertEquals(201, Http.post(engine.url() + "/api/registry/credentials", "admin-token", Map.of("hostId", "a")).status());
        }
    }
}
