package org.mpfl.engine.sites;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mpfl.engine.sites.CrossSites.assertSpansSites;
import static org.mpfl.engine.sites.CrossSites.concat;
import static org.mpfl.engine.sites.CrossSites.startWaitingRun;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.mpfl.testing.Await;
import org.mpfl.testing.StartsProcesses;
import org.mpfl.testing.lab.LabNode;
import org.mpfl.testing.lab.NetworkLab;

/**
 * Faults across sites ({@link CrossSites#startLab}: two NATed sites of two hosts, a relay between
 * them, TLS). heat2d across the sites gives the same doubles as on one site, and a checkpointed run
 * cut by a killed relay and restarted resumes from its last checkpoint through the relay and ends as
 * the undisturbed run; then a site's gateway cut and the relay killed fail a run naming what was lost.
 * (A cancelled run resumed with {@code mpflc resume} is the samples' {@code Heat2dRestartTest}: the
 * resume path is the same whatever ended the attempt, and a resume across the sites is the restart
 * here.) The routing and the
 * attacks are {@link CrossSiteRelayTest}'s; a lab of its own lets the two classes run side by side.
 */
@Timeout(900)
@StartsProcesses
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CrossSiteFaultsTest {
    /**
     * heat2d's params for the runs across sites: a 12 × 12 plate converges to 1e-3 in about 240 Jacobi
     * iterations, each a halo exchange and an allreduce through the relay — the class's main CPU cost:
     * a 16 × 16 plate (about 380 iterations) asserted the same at 1.6 times the iterations, a 24 × 24
     * plate (about 730) at twice the time again. The undisturbed runs take no checkpoint (the reference
     * is a run checkpoints never touched); the runs cut below add {@link #CHECKPOINTED}.
     */
    static final String[] HEAT2D = {"rows=12", "columns=12", "maxIter=3000", "tolerance=1e-3", "progressEvery=50"};
    /**
     * A checkpoint every 10 iterations: a cancel or a relay kill after the third checkpoint (iteration 30)
     * comes mid-run with about 210 iterations (seconds on an idle machine) to spare, and the resumed
     * attempt redoes at most 10. Each checkpoint is an upload by every rank to the engine: every 5
     * iterations on the 16 × 16 plate made 76 per run.
     */
    static final String CHECKPOINTED = "checkpointEvery=10";
    /**
     * The lab engine's relay-return bound ({@code mpflc up --relay-return}), in seconds: a third of the default, so that an
     * outage longer than it takes seconds rather than a minute, and still long enough for the killed relay to be
     * started again within it in the restart test (a relay JVM starts in a few seconds on a loaded machine).
     */
    static final int RELAY_RETURN_S = 20;
    static NetworkLab lab;
    static Path docs;
    static Path heat2d;
    static JsonNode heat2dAcrossSites;

    @BeforeAll
    static void start() throws Exception {
        lab = CrossSites.startLab("--relay-return", String.valueOf(RELAY_RETURN_S));
        docs = Files.createTempDirectory("mpfl-sites-heat2d-");
        heat2d = CrossSites.heat2dDocument(docs);
    }

    @AfterAll
    static void stop() {
        CrossSites.close(lab, docs);
    }

    /**
     * heat2d across 2 sites × 2 hosts through the relay ends exactly as on one site: Jacobi sweeps
     * and a max-allreduce give the same doubles however the plate is split over ranks.
     */
    @Test
    @Order(1)
    void heat2dAcrossSitesEqualsARunOnOneSite() throws Exception {
        lab.assertSitesIsolated();
        JsonNode oneSite = lab.runDocument(heat2d, concat(HEAT2D, "ranks=2"));
        assertEquals("SUCCEEDED", oneSite.path("state").asText(), oneSite + "\n" + lab.logs());
        Set<String> sites = new TreeSet<>();
        lab.placement(oneSite.path("run").asText()).forEach(h -> sites.add(h.substring(0, 2)));
        assertEquals(1, sites.size(), "the reference run packs into one site: " + sites);
        JsonNode across = heat2dAcrossSites();
        assertTrue(across.at("/outputs/converged/0").asBoolean(), across.toString());
        assertTrue(across.at("/outputs/iterations/0").asInt() > 100,
                "hundreds of iterations, so the runs below are cut mid-run: " + across);
        assertEquals(oneSite.get("outputs"), across.get("outputs"));
    }

    /**
     * A relay killed mid-run of a checkpointed heat2d with {@code --restarts 1}: the attempt is given up
     * naming the relay, the restart waits for the relay to be back (started again here once the fault is
     * on record) and resumes from the last checkpoint through it, ending as the undisturbed run.
     */
    @Test
    @Order(3) // before the gateway cut: the cut site's relay links take up to 45 s to be noticed dead and renewed
    void relayKilledMidRunWithRestartsResumesFromTheLastCheckpoint() throws Exception {
        lab.assertSitesIsolated();
        JsonNode undisturbed = heat2dAcrossSites();
        CompletableFuture<JsonNode> summary = startHeat2d(List.of("--restarts", "1"));
        String id = awaitCheckpoints(3, summary);
        Process relay = lab.relayProcess();
        relay.destroyForcibly();
        relay.waitFor();
        Await.until(Duration.ofSeconds(30), "the relay's loss made a restart", () -> lab.run(id),
                d -> d.at("/restarts/used").asInt() == 1);
        lab.restartRelay();
        JsonNode done = Await.runEnds(Duration.ofSeconds(300), () -> lab.run(id), lab::logs);
        assertEquals("SUCCEEDED", done.path("state").asText(), done + "\n" + lab.logs());
        assertTrue(done.at("/attemptLog/1/cause").asText().contains("relay rly"), done.at("/attemptLog").toString());
        assertTrue(done.at("/attemptLog/1/resumedFrom").asLong(0) >= 3, "resumed from a checkpoint: " + done.at("/attemptLog"));
        assertSpansSites(lab, id);
        assertEquals(undisturbed.get("outputs"), done.get("outputs"));
        summary.get(200, TimeUnit.SECONDS);
    }

    /** A relay killed mid-run: the run fails naming the relay, within 10 s. */
    @Test
    @Order(5)
    void relayKilledMidRunFailsTheRunNamingIt() throws Exception {
        String id = runningAcrossSites();
        long t0 = System.nanoTime();
        lab.relayProcess().destroyForcibly();
        JsonNode d = Await.runEnds(Duration.ofSeconds(30), () -> lab.run(id), lab::logs);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertEquals("FAILED", d.path("state").asText(), d.toString());
        assertTrue(d.path("error").path("message").asText().contains("relay rly"), d.path("error").toString());
        // the bound is 10 s; the watch breaks at once on a killed relay, so 10 s holds on a loaded machine
        assertTrue(ms <= 10_000, "the run failed " + ms + " ms after the relay was killed");
    }

    /**
     * The relay down for longer than the engine's relay-return bound ({@link #RELAY_RETURN_S}): the run fails at once
     * naming it, the ranks behind it end by themselves once the bound has passed (their hosts say so), and the hosts
     * register at the relay again seconds after it is back, where a run across the sites takes them again.
     */
    @Test
    @Order(6) // after the relay kill above: its own relay is started again first
    void aRelayDownLongerThanTheBoundEndsTheRanksBehindItAndItsHostsComeBackWithIt() throws Exception {
        List<String> behind = List.of("s2h1", "s2h2");
        if (!lab.relayProcess().isAlive()) {
            Map<String, Integer> before = logCounts(behind, REGISTERED);
            lab.restartRelay();
            awaitMore(behind, REGISTERED, before, Duration.ofSeconds(60));
        }
        String id = runningAcrossSites();
        Map<String, Integer> aborted = logCounts(behind, LOST_RELAY);
        long t0 = System.nanoTime();
        lab.relayProcess().destroyForcibly();
        JsonNode d = Await.runEnds(Duration.ofSeconds(30), () -> lab.run(id), lab::logs);
        assertEquals("FAILED", d.path("state").asText(), d.toString());
        assertTrue(d.path("error").path("message").asText().contains("relay rly"), d.path("error").toString());

        // nothing reaches the ranks behind the relay (and they wait 60 s for a message): they end by themselves
        awaitMore(behind, LOST_RELAY, aborted, Duration.ofSeconds(RELAY_RETURN_S + 60));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms >= RELAY_RETURN_S * 1000L, "the ranks behind the relay ended " + ms + " ms after it was killed, before the"
                + " bound of " + RELAY_RETURN_S + " s");

        Map<String, Integer> registered = logCounts(behind, REGISTERED);
        lab.restartRelay();
        long t1 = System.nanoTime();
        awaitMore(behind, REGISTERED, registered, Duration.ofSeconds(15));
        System.out.println("relay down " + ms + " ms: the hosts behind it registered again "
                + (System.nanoTime() - t1) / 1_000_000 + " ms after it was ready");
        String again = runningAcrossSites();
        lab.http().post(lab.engineUrl(lab.engineNode()) + "/api/runs/" + again + "/cancel", lab.token(), Map.of());
    }

    /** What a host behind a relay logs each time its link registers there ({@code HostRelay}). */
    static final String REGISTERED = "registered at relay rly";
    /** What a host logs when it aborts its domains after its relay link was down past the bound ({@code EngineAnnouncer}). */
    static final String LOST_RELAY = "lost the relay";

    /** How many lines of each host's log contain {@code text}. */
    static Map<String, Integer> logCounts(List<String> hostIds, String text) throws IOException {
        Map<String, Integer> out = new LinkedHashMap<>();
        for (String h : hostIds) {
            out.put(h, (int) Files.readAllLines(lab.host(h).process().log()).stream().filter(l -> l.contains(text)).count());
        }
        return out;
    }

    /** Waits until every host's log has more lines with {@code text} than {@code before} counted. */
    static void awaitMore(List<String> hostIds, String text, Map<String, Integer> before, Duration bound) throws Exception {
        Await.until(bound, () -> "'" + text + "' logged again by " + hostIds + "\n" + lab.logs(), () -> logCounts(hostIds, text),
                now -> hostIds.stream().allMatch(h -> now.get(h) > before.get(h)));
    }

    /** Site 2's gateway cut off the WAN: the run fails naming every host of site 2, and no other. */
    @Test
    @Order(4)
    void gatewayCutFailsTheRunNamingTheUnreachableHosts() throws Exception {
        String id = runningAcrossSites();
        LabNode gw2 = lab.gateway(2);
        long t0 = System.nanoTime();
        gw2.linkDown();
        try {
            JsonNode d = Await.runEnds(Duration.ofSeconds(60), () -> lab.run(id), lab::logs);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertEquals("FAILED", d.path("state").asText(), d.toString());
            String message = d.path("error").path("message").asText();
            // both hosts of the cut site are named, though their heartbeats time out one after the other
            assertTrue(message.contains("s2h1") && message.contains("s2h2"), message);
            assertFalse(message.contains("s1h1") || message.contains("s1h2"), "site 1 is still reachable: " + message);
            System.out.println("gateway cut: run FAILED " + ms + " ms after the cut: " + message);
        } finally {
            gw2.linkUp();
        }
        lab.awaitRegistered(List.of("s2h1", "s2h2"));
    }

    /** A run of 4 ranks that wait (they never end by themselves), RUNNING across both sites; its id. */
    static String runningAcrossSites() throws Exception {
        lab.assertSitesIsolated();
        String id = startWaitingRun(lab, 4);
        Await.runIn(Duration.ofSeconds(90), "RUNNING", () -> lab.run(id));
        assertSpansSites(lab, id);
        return id;
    }

    /** {@code mpflc run} of heat2d across the sites ({@link #HEAT2D}, 4 ranks, {@link #CHECKPOINTED}) in the background. */
    static CompletableFuture<JsonNode> startHeat2d(List<String> options) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return lab.runDocument(heat2d, options, concat(HEAT2D, "ranks=4", CHECKPOINTED));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /**
     * The id of the running heat2d run, once it has taken {@code n} checkpoints; it spans both sites.
     * A failure says how {@code mpflc run} ended if it did.
     */
    static String awaitCheckpoints(int n, CompletableFuture<JsonNode> summary) throws Exception {
        JsonNode running = Await.until(Duration.ofSeconds(180), () -> "a heat2d run across the sites with " + n
                + " checkpoints (mpflc run: " + (summary.isDone() ? summary.handle((v, e) -> v != null ? v.toString() : String.valueOf(e)).join() : "still running") + ")\n" + lab.logs(), () -> {
            for (JsonNode run : lab.adminGet("/api/runs?state=RUNNING&workflow=heat2d").json()) {
                JsonNode d = lab.run(run.path("id").asText());
                return d.path("checkpointsTaken").asInt() >= n ? d : null;
            }
            return null;
        }, d -> d != null);
        String id = running.path("id").asText();
        assertSpansSites(lab, id);
        return id;
    }

    /** The undisturbed heat2d run across both sites (once per class: the reference of every test). */
    static synchronized JsonNode heat2dAcrossSites() throws Exception {
        if (heat2dAcrossSites == null) {
            JsonNode r = lab.runDocument(heat2d, concat(HEAT2D, "ranks=4"));
            assertEquals("SUCCEEDED", r.path("state").asText(), r + "\n" + lab.logs());
            assertSpansSites(lab, r.path("run").asText());
            heat2dAcrossSites = r;
        }
        return heat2dAcrossSites;
    }
}
