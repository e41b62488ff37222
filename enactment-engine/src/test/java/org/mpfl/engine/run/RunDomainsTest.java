package org.mpfl.engine.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.store.EngineDatabase;
import org.mpfl.engine.store.LiveDomainStore;
import org.mpfl.protocol.Endpoint;
import org.mpfl.protocol.MpiwsClient;
import org.mpfl.protocol.RunRequest;
import org.mpfl.protocol.SoapFault;

/**
 * The one abort path of the run service ({@link RunDomains}): one {@code abort} per distinct service
 * URL, and which hosts count as unreachable afterwards (no answer or a transport failure; a SOAP fault
 * is an answer). In process: fake ranks behind the real Camel fan-out, an embedded H2 database.
 */
class RunDomainsTest {
    @TempDir
    Path dir;

    private DefaultCamelContext camel;
    private ExecutorService pool;
    private EngineDatabase db;
    /** Abort calls per service URL. */
    private final Map<String, AtomicInteger> aborts = new ConcurrentHashMap<>();

    /** Host a answers, b answers with a SOAP fault, c's connection fails. */
    private final RankInvoker ranks = new RankInvoker() {
        @Override
        public void run(RankPlacement target, RunRequest request) {
            throw new UnsupportedOperationException();
        }

        @Override
        public RankStatus status(RankPlacement target, String domainId, String token) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void abort(RankPlacement target, String domainId, String token) throws Exception {
            aborts.computeIfAbsent(target.endpoint().soapUrl(), k -> new AtomicInteger()).incrementAndGet();
            switch (target.hostId()) {
                case "b" -> throw new MpiwsClient.MpiwsCallException("refused",
                        new SoapFault("soapenv:Receiver", null, "no such domain"));
                case "c" -> throw new IOException("connection refused");
                default -> { }
            }
        }
    };

    private RunDomains domains;

    @BeforeEach
    void start() throws Exception {
        camel = new DefaultCamelContext();
        pool = Executors.newFixedThreadPool(4);
        RankFanOut fanOut = RankFanOut.install(camel, pool, Duration.ofSeconds(30));
        camel.start();
        db = EngineDatabase.openEmbedded(dir);
        domains = new RunDomains(db.liveDomains(), ranks, fanOut, () -> false, new org.mpfl.engine.registry.Relays());
    }

    @AfterEach
    void stop() throws Exception {
        camel.close();
        pool.shutdownNow();
        db.close();
    }

    private static RankPlacement rank(int rank, String host, String url) {
        return new RankPlacement(rank, "p", "s", host, new Endpoint(url, null, host));
    }

    private static Run placedRun() {
        Run run = new Run("r", "w", "d1", "t1", Map.of(), 1);
        run.placed(List.of(rank(0, "a", "http://a/s"), rank(1, "a", "http://a/s"), rank(2, "b", "http://b/s"),
                rank(3, "c", "http://c/s")));
        return run;
    }

    @Test
    void oneAbortPerServiceUrlAndOnlyTransportFailuresAreUnreachable() {
        Set<String> unreachable = domains.abort("r", placedRun().domain(), null);
        assertEquals(Set.of("c"), unreachable, "b answered with a SOAP fault: it is reachable");
        assertEquals(Map.of("http://a/s", 1, "http://b/s", 1, "http://c/s", 1),
                Map.of("http://a/s", aborts.get("http://a/s").get(), "http://b/s", aborts.get("http://b/s").get(),
                        "http://c/s", aborts.get("http://c/s").get()), "two ranks of one service URL: one abort there");
    }

    @Test
    void onlyTheGivenUrlsAreAborted() {
        Set<String> unreachable = domains.abort("r", placedRun().domain(), Set.of("http://a/s"));
        assertEquals(Set.of(), unreachable);
        assertEquals(Set.of("http://a/s"), aborts.keySet());
    }

    @Test
    void anEndedRunsCurrentDomainIsForgottenAnOldOneIsNot() {
        Run run = placedRun();
        domains.live(run, run.domain());
        assertEquals(List.of(new LiveDomainStore.LiveDomain("r", "d1", "t1", List.of("http://a/s", "http://b/s", "http://c/s"))),
                db.liveDomains().all(), "one entry per distinct service URL");
        Run.Domain old = run.domain();
        run.newDomain("d2", "t2");
        domains.abortEnded(run, old);
        assertEquals(1, db.liveDomains().all().size(), "a domain given up is not the run's live one: its record stays");
        domains.abortEnded(run, run.domain());
        assertEquals(List.of(), db.liveDomains().all(), "the run's current domain is forgotten once aborted");
    }

    /**
     * A run cancelled while placement was still on its way to recording the domain (a restart waiting for
     * a relay, say): the cancel's forget came first, so the late record is dropped at once instead of
     * keeping the ended domain and its token until the next engine start.
     */
    @Test
    void aDomainRecordedAfterItsRunEndedIsNotKept() {
        Run run = placedRun();
        assertTrue(run.finish(RunState.CANCELLED, new RunError(null, null, "cancelled by user"), 2));
        domains.abortEnded(run, run.domain());
        domains.live(run, run.domain());
        assertEquals(List.of(), db.liveDomains().all());
    }
}
