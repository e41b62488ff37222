package org.mpfl.engine.access;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.testing.Http;
import org.mpfl.engine.run.FakeRanks;

/**
 * Reads are open only where nobody else can reach them: an engine on loopback without an issuer (as
 * {@code mpflc up} and {@code run --local} start it) serves reads to anyone; one on any other address
 * refuses them without a credential unless anonymous reads were turned on.
 */
@Timeout(60)
class OpenReadsTest {
    @TempDir
    Path dir;

    private static int anonymousRead(Engine e, String path) throws Exception {
        // 0.0.0.0 accepts on loopback too: the client's way in does not change what the engine decided
        return Http.get(e.url().replaceFirst("//[^:/]+:", "//127.0.0.1:") + path).status();
    }

    @Test
    void aNonLoopbackEngineWithoutIssuerRefusesAnonymousReads() throws Exception {
        try (Engine e = Engine.start(new EngineConfig().port(0).bindHost("0.0.0.0").dataDir(dir).token("t")
                .invoker(new FakeRanks(r -> { })))) {
            assertEquals(401, anonymousRead(e, "/api/runs"));
            assertEquals(401, anonymousRead(e, "/api/workflows"));
            assertEquals(401, anonymousRead(e, "/api/engine"));
            assertEquals(200, Http.send("GET", e.url().replaceFirst("//[^:/]+:", "//127.0.0.1:") + "/api/runs", "Bearer t", null)
                    .status());
        }
    }

    @Test
    void anonymousReadOpensThemAndLoopbackIsOpenByDefault() throws Exception {
        try (Engine e = Engine.start(new EngineConfig().port(0).bindHost("0.0.0.0").anonymousRead(true).dataDir(dir.resolve("a"))
                .token("t").invoker(new FakeRanks(r -> { })))) {
            assertEquals(200, anonymousRead(e, "/api/runs"));
            assertEquals(401, Http.send("POST", e.url().replaceFirst("//[^:/]+:", "//127.0.0.1:") + "/api/runs", null,
                    java.util.Map.of()).status(), "mutations still need a credential");
            assertEquals(401, anonymousRead(e, "/api/registry/hosts"), "the registry is admin only");
        }
        try (Engine e = Engine.start(new EngineConfig().port(0).dataDir(dir.resolve("b")).token("t").invoker(new FakeRanks(r -> { })))) {
            assertEquals(200, anonymousRead(e, "/api/runs"));
        }
    }
}
