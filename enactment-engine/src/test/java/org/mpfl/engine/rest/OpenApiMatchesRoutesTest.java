package org.mpfl.engine.rest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.HostCalls;
import org.mpfl.engine.access.OidcSettings;
import org.mpfl.engine.access.TestIssuer;
import org.mpfl.engine.run.FakeRanks;
import org.mpfl.testing.Http;

/**
 * docs/openapi.yaml (what {@code GET /api/openapi} serves, "lists them" in every 404) says what the engine
 * answers: every documented path takes exactly its documented methods over real HTTP ({@code OPTIONS}'
 * {@code Allow}, read from the routes), so a route added, moved or dropped without the document fails here.
 * (A route the document never names is not found this way: the routes' table is the engine's own.)
 */
@Timeout(60)
class OpenApiMatchesRoutesTest {
    private static final Pattern PATH = Pattern.compile("^  (/\\S*):\\s*$");
    private static final Pattern METHOD = Pattern.compile("^    (get|put|post|delete|patch|head|options):\\s*$");
    private static final List<String> ORDER = List.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS");

    /** The console's login routes: present when the engine has an issuer and a console client id. */
    private static final String SESSIONS = "/api/session/";

    @TempDir
    Path dir;

    @Test
    void everyDocumentedPathTakesExactlyItsDocumentedMethods() throws Exception {
        Engine engine = Engine.start(new EngineConfig().port(0).heartbeatTimeout(HostCalls.SILENT_HOSTS_TIMEOUT)
                .dataDir(dir).token("admin-token").invoker(new FakeRanks(r -> r.state("DONE"))));
        try {
            Map<String, Set<String>> paths = documented(engine);
            assertTrue(paths.size() >= 30, "the document's paths were not read: " + paths.keySet());
            assertEquals(List.of(), differences(engine, paths, false), "docs/openapi.yaml and the engine's routes differ");
        } finally {
            engine.close();
        }
    }

    @Test
    void anEngineWithAnIssuerAndAConsoleClientAlsoTakesTheDocumentedLoginRoutes() throws Exception {
        try (TestIssuer issuer = TestIssuer.start()) {
            Engine engine = Engine.start(new EngineConfig().port(0).heartbeatTimeout(HostCalls.SILENT_HOSTS_TIMEOUT)
                    .dataDir(dir).token("admin-token").invoker(new FakeRanks(r -> r.state("DONE")))
                    .oidc(OidcSettings.of(issuer.issuer(), "mpfl-engine").withConsoleClientId("mpfl-console")));
            try {
                Map<String, Set<String>> paths = documented(engine);
                assertTrue(paths.keySet().stream().filter(p -> p.startsWith(SESSIONS)).count() >= 3, paths.keySet().toString());
                assertEquals(List.of(), differences(engine, paths, true), "docs/openapi.yaml and the engine's routes differ");
            } finally {
                engine.close();
            }
        }
    }

    /**
     * Where {@code OPTIONS}' {@code Allow} differs from the document: a path takes the documented methods, with
     * {@code HEAD} beside {@code GET} and {@code OPTIONS} on every path; without {@code sessions} the login routes
     * are answered 404.
     */
    private static List<String> differences(Engine engine, Map<String, Set<String>> paths, boolean sessions) throws Exception {
        List<String> differences = new ArrayList<>();
        for (Map.Entry<String, Set<String>> e : paths.entrySet()) {
            String path = e.getKey().replaceAll("\\{[^}]+}", "x1");
            Http.Answer a = Http.send("OPTIONS", engine.url() + path, "Bearer admin-token", null);
            if (!sessions && e.getKey().startsWith(SESSIONS)) {
                if (a.status() != 404) {
                    differences.add(e.getKey() + ": answered " + a.status() + " without a console client (documented: absent)");
                }
                continue;
            }
            Set<String> expected = inAllowOrder();
            expected.addAll(e.getValue());
            if (expected.contains("GET")) {
                expected.add("HEAD");
            }
            expected.add("OPTIONS");
            String allow = a.headers().firstValue("Allow").orElse("(no Allow; " + a.status() + " " + a.body().strip() + ")");
            if (!String.join(", ", expected).equals(allow)) {
                differences.add(e.getKey() + ": documented " + String.join(", ", expected) + ", the engine takes " + allow);
            }
        }
        return differences;
    }

    /** The paths of the document the engine serves, each with its methods. */
    private static Map<String, Set<String>> documented(Engine engine) throws Exception {
        Http.Answer served = Http.send("GET", engine.url() + "/api/openapi", "Bearer admin-token", null);
        assertEquals(200, served.status(), served.body());
        Map<String, Set<String>> paths = new LinkedHashMap<>();
        String current = null;
        boolean inPaths = false;
        for (String line : served.body().split("\n")) {
            if (!line.startsWith(" ") && !line.isBlank()) {
                inPaths = line.startsWith("paths:");
                current = null;
                continue;
            }
            Matcher p = PATH.matcher(line);
            Matcher m = METHOD.matcher(line);
            if (inPaths && p.matches()) {
                current = p.group(1);
                paths.put(current, inAllowOrder());
            } else if (inPaths && current != null && m.matches()) {
                paths.get(current).add(m.group(1).toUpperCase(Locale.ROOT));
            }
        }
        return paths;
    }

    private static Set<String> inAllowOrder() {
        return new TreeSet<>((a, b) -> Integer.compare(ORDER.indexOf(a), ORDER.indexOf(b)));
    }
}
