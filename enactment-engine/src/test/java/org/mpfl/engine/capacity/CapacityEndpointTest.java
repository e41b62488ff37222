package org.mpfl.engine.capacity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.access.AccessPolicy;
import org.mpfl.engine.run.FakeRanks;
import org.mpfl.testing.Await;
import org.mpfl.testing.Http;

/**
 * {@code GET /api/capacity} against a {@link FakeScheduler}: the provider's jobs, also the pending ones whose host has
 * not joined (which the registry cannot list), why submissions wait, and nothing secret; read as the host listing is.
 */
@Timeout(120)
class CapacityEndpointTest {
    @TempDir
    Path dir;
    Engine engine;
    final FakeScheduler slurm = new FakeScheduler();

    @AfterEach
    void stop() {
        if (engine != null) {
            engine.close();
        }
    }


    private void queueRun(int ranks) throws Exception {
        Http.Answer a = Http.post(engine.url() + "/api/runs", engine.token(), Map.of("plan", Map.of("workflow", "ring",
                "processes", List.of(Map.of("name", "ring", "service", "ring", "ranks", ranks)))));
        assertEquals(201, a.status(), a.body());
    }

    private JsonNode capacity() throws Exception {
        Http.Answer a = Http.get(engine.url() + "/api/capacity");
        assertEquals(200, a.status(), a.body());
        return a.json();
    }

    /** A queued run's pending job is listed with its id, state and host id before its host exists; no credential is. */
    @Test
    void aPendingJobIsListedWithItsIdAndStateAndNoCredential() throws Exception {
        engine = Engine.start(slurm.engineConfig(dir, 1, 2));
        JsonNode empty = capacity();
        assertEquals("slurm", empty.path("provider").asText(), empty.toString());
        assertEquals("Slurm job", empty.path("jobKind").asText(), empty.toString());
        assertEquals(1, empty.at("/limits/maxNodes").asInt(), empty.toString());
        assertEquals(2, empty.at("/limits/cpusPerNode").asInt(), empty.toString());
        assertEquals(0, empty.path("jobs").size(), empty.toString());

        queueRun(2);
        JsonNode c = Await.until(Duration.ofSeconds(30), "job 100 listed PENDING", this::capacity,
                j -> j.path("jobs").size() == 1 && j.at("/jobs/0/state").asText().equals("PENDING"));
        JsonNode job = c.at("/jobs/0");
        HostJob submitted = slurm.submitted.get(0);
        assertEquals("100", job.path("jobId").asText(), c.toString());
        assertEquals("PENDING", job.path("phase").asText(), c.toString());
        assertEquals("Resources", job.path("reason").asText(), c.toString());
        assertEquals(submitted.hostId(), job.path("hostId").asText(), c.toString());
        assertEquals(submitted.name(), job.path("jobName").asText(), c.toString());
        assertTrue(job.path("node").isNull(), "no node while pending: " + c);
        assertTrue(job.path("submittedMs").asLong() > 0, c.toString());
        assertFalse(job.path("joined").asBoolean(), c.toString());
        assertFalse(job.path("releasing").asBoolean(), c.toString());
        assertTrue(c.path("startFailure").isNull() && c.path("nextSubmitMs").isNull(), c.toString());
        String body = Http.get(engine.url() + "/api/capacity").body();
        assertFalse(body.contains(submitted.credential()), "the job's host credential is not shown: " + body);
        assertFalse(body.contains(engine.token()), "the engine token is not shown: " + body);
        assertFalse(body.toLowerCase(java.util.Locale.ROOT).contains("credential"), body);

        // a job that ends before its host joined: the start failure, and when the next job may go
        slurm.end("100", "FAILED", "JobLaunchFailure");
        JsonNode failed = Await.until(Duration.ofSeconds(30), "the start failure shown", this::capacity,
                j -> !j.path("startFailure").isNull());
        assertTrue(failed.path("startFailure").asText().contains("Slurm job 100 ended: FAILED (JobLaunchFailure)"), failed.toString());
        assertTrue(failed.path("nextSubmitMs").asLong() > failed.path("asOfMs").asLong(), failed.toString());
        assertTrue(failed.path("jobs").isEmpty() || !failed.at("/jobs/0/jobId").asText().equals("100"), failed.toString());
    }

    /** Without a provider: {@code "provider": null} and no jobs (not a 404: the console and mpflc hosts ask every engine). */
    @Test
    void anEngineWithoutAProviderSaysSo() throws Exception {
        engine = Engine.start(new EngineConfig().port(0).dataDir(dir).invoker(new FakeRanks(r -> { })));
        JsonNode c = capacity();
        assertTrue(c.path("provider").isNull(), c.toString());
        assertEquals(0, c.path("jobs").size(), c.toString());
    }

    /**
     * The jobs are read as the host listing is: refused to an anonymous caller (401, the same answer as
     * {@code GET /api/registry/hosts}) also where anonymous reads are on, and to no one holding the admin token.
     */
    @Test
    void anAnonymousReadIsRefusedAsTheHostListingIs() throws Exception {
        assertEquals(AccessPolicy.target("GET", "/api/registry/hosts"), AccessPolicy.target("GET", "/api/capacity"));
        for (boolean anonymousRead : new boolean[] {false, true}) {
            engine = Engine.start(slurm.engineConfig(dir.resolve("e" + anonymousRead), 1, 2).bindHost("0.0.0.0").token("t")
                    .anonymousRead(anonymousRead));
            // 0.0.0.0 accepts on loopback too: the client's way in does not change what the engine decided
            String base = engine.url().replaceFirst("//[^:/]+:", "//127.0.0.1:");
            Http.Answer hosts = Http.get(base + "/api/registry/hosts");
            Http.Answer capacity = Http.get(base + "/api/capacity");
            assertEquals(401, capacity.status(), "anonymousRead " + anonymousRead + ": " + capacity.body());
            assertEquals(hosts.status(), capacity.status());
            assertEquals(hosts.body(), capacity.body(), "the same refusal as the host listing's");
            assertEquals(401, Http.send("GET", base + "/api/capacity", "Bearer wrong", null).status());
            Http.Answer admin = Http.send("GET", base + "/api/capacity", "Bearer t", null);
            assertEquals(200, admin.status(), admin.body());
            assertEquals("slurm", admin.json().path("provider").asText(), admin.body());
            engine.close();
            engine = null;
        }
    }
}
