package org.mpfl.engine.access;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.store.EngineDatabase;

/**
 * The bound on refusals of frequent requests (heartbeats, a relay's checks): one row per caller, route and status a
 * minute, however often they come, and again once the minute is over; a credential the engine does not know counts the
 * host its heartbeat names as one route (it could name a new one with each beat); no credential at all is only counted.
 */
@Timeout(60)
class AuditRefusalBoundTest {
    @TempDir
    Path dir;

    @Test
    void oneRowPerCallerRouteAndStatusAMinute() throws Exception {
        AtomicLong now = new AtomicLong(1_000_000);
        try (EngineDatabase db = EngineDatabase.openEmbedded(dir);
             Audit audit = new Audit(db.access(), Duration.ofDays(90), now::get)) {
            Caller h1 = Caller.host("h1");
            for (int i = 0; i < 10; i++) {
                audit.recordRefusal(h1, "10.0.0.1", "POST", "/api/registry/hosts/h1/heartbeat", 404);
                audit.recordRefusal(h1, "10.0.0.1", "POST", "/api/registry/hosts/h2/heartbeat", 403);
                audit.recordRefusal(Caller.unknownCredential(), "10.0.0.9", "POST", "/api/registry/hosts/x" + i + "/heartbeat", 401);
                audit.recordRefusal(null, "10.0.0.9", "POST", "/api/registry/hosts/h1/heartbeat", 401);
            }
            now.addAndGet(Audit.REFUSAL_WINDOW.toMillis() - 1);
            audit.recordRefusal(h1, "10.0.0.1", "POST", "/api/registry/hosts/h1/heartbeat", 404);
            now.addAndGet(1);
            audit.recordRefusal(h1, "10.0.0.1", "POST", "/api/registry/hosts/h1/heartbeat", 404);
            audit.flush(Duration.ofSeconds(10));
            List<String> rows = db.access().audit(0, 100).stream().map(e -> e.who() + " " + e.action() + " " + e.status()).toList();
            assertEquals(List.of("host:h1 POST /api/registry/hosts/h1/heartbeat 404", "host:h1 POST /api/registry/hosts/h2/heartbeat 403",
                    "unknown-credential POST /api/registry/hosts/x0/heartbeat 401",
                    "host:h1 POST /api/registry/hosts/h1/heartbeat 404"), rows, "the last once the minute was over");
            assertEquals(10, audit.anonymousRefusals(), "no credential: counted only");
        }
    }
}
