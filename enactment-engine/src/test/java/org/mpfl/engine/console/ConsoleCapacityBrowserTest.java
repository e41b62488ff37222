package org.mpfl.engine.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.HostCalls;
import org.mpfl.engine.capacity.FakeScheduler;
import org.mpfl.engine.run.FakeRanks;
import org.mpfl.protocol.relay.RelayDialer;
import org.mpfl.testing.Http;
import org.mpfl.testing.Ports;
import org.mpfl.testing.StartsProcesses;
import org.mpfl.testing.browser.HeadlessChromium;

/**
 * The registry page's Capacity section in a real headless Chromium: against an engine whose capacity provider is the
 * in-memory {@link FakeScheduler}, a queued run's pending job (no host has joined, so the hosts table cannot show it)
 * is listed with its id, state and reason under the provider's limits, the page still passing axe-core; against an
 * engine without a provider there is no Capacity section at all; a host the engine cannot reach through its relay
 * reads as kept out, with why, not alive.
 */
@Timeout(300)
@StartsProcesses
class ConsoleCapacityBrowserTest {
    /** Bound for what the browser and engine do in well under a second when idle: generous for a loaded 2-core machine. */
    private static final Duration WAIT = Duration.ofSeconds(40);
    static HeadlessChromium browser;
    @TempDir
    Path dir;
    Engine engine;

    @BeforeAll
    static void startBrowser() throws Exception {
        browser = HeadlessChromium.start(1400, 1000);
    }

    @AfterAll
    static void stopBrowser() {
        if (browser != null) {
            browser.close();
        }
    }

    @AfterEach
    void stopEngine() {
        if (engine != null) {
            engine.close();
        }
    }

    private void openRegistry() {
        browser.driver().get(engine.url() + "/#/registry");
    }

    @Test
    void aQueuedRunsPendingJobIsListedWithItsIdStateAndReason() throws Exception {
        FakeScheduler slurm = new FakeScheduler();
        engine = Engine.start(slurm.engineConfig(dir, 1, 2));
        openRegistry();
        browser.await("the Capacity section with no jobs yet", WAIT,
                d -> browser.text("#capacity h2").equals("Capacity") && browser.text("#capacity").contains("No Slurm jobs."));
        assertTrue(browser.text("#capacity-limits").contains("at most 1 Slurm job of 2 CPUs each"), browser.text("#capacity"));

        Http.Answer started = Http.post(engine.url() + "/api/runs", engine.token(), Map.of("plan", Map.of("workflow", "ring",
                "processes", List.of(Map.of("name", "ring", "service", "ring", "ranks", 2)))));
        assertEquals(201, started.status(), started.body());
        String row = "#capacity-jobs tbody tr[data-job-id='100']";
        browser.await("job 100 shown PENDING (Resources)", WAIT, d -> browser.text(row + " th").equals("100")
                && browser.text(row + " td[data-state]").contains("PENDING") && browser.text(row + " td[data-state]").contains("Resources"));
        String hostId = slurm.submitted.get(0).hostId();
        assertTrue(browser.text(row).contains(hostId), browser.text(row));
        assertTrue(browser.text(row).contains("not joined"), browser.text(row));
        assertEquals(0, browser.count("#hosts-table"), "no host has joined: the hosts table is not there");
        List<String> violations = AxeCore.violations(browser);
        assertTrue(violations.isEmpty(), "registry with capacity: " + String.join("\n", violations));
        browser.picture("registry-capacity.png");

        // a job that ends before its host joined: why, and when the next one may go
        slurm.end("100", "FAILED", "JobLaunchFailure");
        browser.await("the start failure and the next submission", WAIT,
                d -> browser.text("#capacity-start-failure").contains("Slurm job 100 ended: FAILED (JobLaunchFailure)")
                        && browser.text("#capacity-next-submit").startsWith("No Slurm job is submitted before "));
    }

    @Test
    void anEngineWithoutAProviderShowsNoCapacitySection() throws Exception {
        engine = Engine.start(new EngineConfig().port(0).dataDir(dir).invoker(new FakeRanks(r -> { })));
        openRegistry();
        // hosts and capacity are read before either is drawn: once the summary shows, the section would be there too
        browser.await("the registry drawn", WAIT, d -> browser.text("main .summary").startsWith("0 service hosts"));
        assertEquals(0, browser.count("#capacity"), browser.text("main"));
        assertTrue(!browser.text("main").contains("Capacity"), browser.text("main"));
    }

    /**
     * A host whose {@code --relay} names an address where no relay ever announced itself heartbeats, but the engine
     * cannot reach it: {@code GET /api/registry/hosts} says why ({@code unreachable}) and placement leaves it out.
     * Its row says kept out with that reason, as {@code mpflc hosts} does; before, its Health badge said alive.
     */
    @Test
    void aHostOutOfReachThroughItsRelayReadsAsKeptOutWithWhy() throws Exception {
        engine = Engine.start(new EngineConfig().port(0).dataDir(dir).heartbeatTimeout(HostCalls.SILENT_HOSTS_TIMEOUT)
                .invoker(new FakeRanks(r -> { })));
        String nowhere = "127.0.0.1:" + Ports.outsideEphemeralRange();
        String behind = "127.0.0.1:" + Ports.outsideEphemeralRange();
        try {
            announce("direct", "127.0.0.1:" + Ports.outsideEphemeralRange(), null);
            announce("behind", behind, nowhere);
            openRegistry();
            String row = "#hosts-table tr[data-host-id='behind']";
            browser.await("host behind shown kept out", WAIT, d -> browser.count(row) == 1
                    && browser.text(row + " td:first-child .badge").equals("kept out"));
            String health = browser.text(row + " td:first-child");
            assertTrue(health.contains("no relay has announced itself at " + nowhere), health);
            assertTrue(!health.contains("alive"), health);
            assertEquals("alive", browser.text("#hosts-table tr[data-host-id='direct'] td:first-child"),
                    "a host reached directly is not kept out");
            List<String> violations = AxeCore.violations(browser);
            assertTrue(violations.isEmpty(), "registry with a kept-out host: " + String.join("\n", violations));
        } finally {
            // the announcement routed the host's address through the relay for this JVM: undo it
            RelayDialer.shared().routeVia(behind, null, null);
        }
    }

    /**
     * A kept-out host's slots are not free: of a host reached directly (2 slots, one rank of a live run on it), one out
     * of reach through its relay (3) and one quarantined (4, in site B), the summary counts 1 of 2 slots in use and says the other
     * 7 are kept out and why, in words; before, it read "1 of 9 rank slots in use" as if placement could use all nine. The
     * kept-out hosts' rows say their slots are kept out too (they read "0 / 3", "0 / 4").
     */
    @Test
    void keptOutHostsSlotsAreShownApartFromTheSlotsPlacementCanUse() throws Exception {
        engine = Engine.start(new EngineConfig().port(0).dataDir(dir).heartbeatTimeout(HostCalls.SILENT_HOSTS_TIMEOUT)
                .invoker(new FakeRanks(r -> {
                    r.state("RUNNING");
                    if (r.awaitAbort(120_000)) {
                        r.state("ABORTED");
                    }
                })));
        String nowhere = "127.0.0.1:" + Ports.outsideEphemeralRange();
        String behind = "127.0.0.1:" + Ports.outsideEphemeralRange();
        try {
            announce("direct", "127.0.0.1:" + Ports.outsideEphemeralRange(), null, 2);
            announce("behind", behind, nowhere, 3);
            announce("refusing", "127.0.0.1:" + Ports.outsideEphemeralRange(), null, 4, "B");
            engine.registry().quarantine("refusing", "deploy refused: HTTP 500", Duration.ofSeconds(300), Duration.ofSeconds(300));
            Http.Answer started = Http.post(engine.url() + "/api/runs", engine.token(), Map.of("plan", Map.of("workflow", "ring",
                    "processes", List.of(Map.of("name", "ring", "service", "ring", "ranks", 1)))));
            assertEquals(201, started.status(), started.body());
            openRegistry();
            browser.await("the run's rank shown on host direct", WAIT,
                    d -> browser.count("#hosts-table tr[data-host-id='direct']") == 1
                            && browser.text("#hosts-table tr[data-host-id='direct']").contains("1 / 2"));
            // drawn with the rows, from the same answer: read after them (the run's rank stays while the test looks)
            String summary = browser.text("main .summary");
            // the sites count the hosts, not the slots kept out: said with the hosts
            assertTrue(summary.startsWith("3 service hosts in 2 sites, 1 of 2 rank slots in use"), summary);
            assertTrue(summary.contains("7 rank slots kept out (1 host out of reach through its relay, 1 quarantined), not counted"),
                    summary);
            assertTrue(!summary.contains("of 9"), summary);
            // and so are their rows' cells: "0 / 3" read as three usable slots
            assertEquals("1 / 2", browser.text("#hosts-table tr[data-host-id='direct'] td[data-capacity]"));
            assertEquals("3 rank slots kept out", browser.text("#hosts-table tr[data-host-id='behind'] td[data-capacity]"));
            assertEquals("4 rank slots kept out", browser.text("#hosts-table tr[data-host-id='refusing'] td[data-capacity]"));
            List<String> violations = AxeCore.violations(browser);
            assertTrue(violations.isEmpty(), "registry with kept-out slots: " + String.join("\n", violations));
        } finally {
            RelayDialer.shared().routeVia(behind, null, null);
        }
    }

    private void announce(String hostId, String address, String relay) throws Exception {
        announce(hostId, address, relay, 1);
    }

    private void announce(String hostId, String address, String relay, int capacity) throws Exception {
        announce(hostId, address, relay, capacity, null);
    }

    private void announce(String hostId, String address, String relay, int capacity, String site) throws Exception {
        Map<String, Object> h = new LinkedHashMap<>();
        h.put("hostId", hostId);
        h.put("soapUrl", "http://" + address + "/axis2/services");
        h.put("services", List.of("ring"));
        h.put("capacity", capacity);
        if (relay != null) {
            h.put("relay", relay);
        }
        if (site != null) {
            h.put("site", site);
        }
        Http.Answer a = HostCalls.announce(engine, h);
        assertEquals(201, a.status(), a.body());
    }
}
