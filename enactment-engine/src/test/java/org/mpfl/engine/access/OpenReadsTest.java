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

    /** A GET as a reverse proxy forwards it: with {@code header} naming the client it came from. */
    private static java.net.http.HttpResponse<String> proxied(Engine e, String path, String header, String auth) throws Exception {
        java.net.http.HttpRequest.Builder b = java.net.http.HttpRequest.newBuilder(java.net.URI.create(e.url() + path))
                .timeout(java.time.Duration.ofSeconds(30)).header(header, header.equals("Forwarded") ? "for=203.0.113.7" : "203.0.113.7");
        if (auth != null) {
            b.header("Authorization", auth);
        }
        return java.net.http.HttpClient.newHttpClient().send(b.GET().build(), java.net.http.HttpResponse.BodyHandlers.ofString());
    }

    /**
     * A loopback engine without an issuer, put behind a reverse proxy (docs/deployment.md, "Behind a reverse proxy"), sees
     * every request come from loopback: its open reads and open registry view would be open to whoever reaches the
     * proxy. A request the proxy marks as forwarded is therefore not local: anonymous reads and the registry view are
     * refused as on a network engine (they were served, 200); credentials work as ever, and so does
     * {@code --anonymous-read}, which opens reads on purpose.
     */
    @Test
    void aLoopbackEngineReachedThroughAReverseProxyDoesNotOpenItsReadsToTheProxysClients() throws Exception {
        try (Engine e = Engine.start(new EngineConfig().port(0).dataDir(dir.resolve("p")).token("t").invoker(new FakeRanks(r -> { })))) {
            for (String header : java.util.List.of("X-Forwarded-For", "Forwarded", "X-Real-IP")) {
                for (String path : java.util.List.of("/api/runs", "/api/registry/hosts", "/api/deployments")) {
                    assertEquals(401, proxied(e, path, header, null).statusCode(), header + " " + path);
                    assertEquals(200, proxied(e, path, header, "Bearer t").statusCode(), header + " " + path + " with the admin token");
                }
                String auth = proxied(e, "/api/auth", header, null).body();
                org.junit.jupiter.api.Assertions.assertTrue(auth.contains("\"openReads\":false"), "the console asks for a login: " + auth);
            }
            assertEquals(200, anonymousRead(e, "/api/runs"), "not through a proxy: local, open as before");
            assertEquals(200, anonymousRead(e, "/api/registry/hosts"));
        }
        try (Engine e = Engine.start(new EngineConfig().port(0).anonymousRead(true).dataDir(dir.resolve("q")).token("t")
                .invoker(new FakeRanks(r -> { })))) {
            assertEquals(200, proxied(e, "/api/runs", "X-Forwarded-For", null).statusCode(), "--anonymous-read opens reads on purpose");
            assertEquals(401, proxied(e, "/api/registry/hosts", "X-Forwarded-For", null).statusCode(), "but not the registry");
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
