package org.mpfl.runtime.collective;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.Endpoint;
import org.mpfl.protocol.MpiwsClient;
import org.mpfl.protocol.RankStatus;
import org.mpfl.protocol.RunRequest;
import org.mpfl.protocol.launch.HostProcesses;
import org.mpfl.testing.StartsProcesses;

/**
 * The collective suite between two separate service-host processes (child JVMs): ranks placed
 * round-robin, started with the MPIWS {@code run} operation and checked with {@code status}; once
 * with every message over SOAP/HTTP, once with the automatic transport choice.
 */
@StartsProcesses
class SoapHostsCollectivesTest {
    private static final String SERVICE = "mpfl.test.CollectiveSuite";
    private static final String TESTS = "broadcastEveryRootAlgorithmAndLength,scatterBlockDistribution,"
            + "gatherArraysOfDifferentLengthsScalarsStringsBooleans,allgatherEveryAlgorithm,"
            + "reduceEveryOperatorTypeRootAndAlgorithm,allreduceEveryOperatorTypeAndAlgorithm,"
            + "alltoallBlocksOfDifferentLengths,scanInclusive,oneMegabyteMessages";
    private static HostProcesses hosts;
    private static MpiwsClient client;

    @BeforeAll
    static void start() throws Exception {
        hosts = HostProcesses.builder().count(2).service(SERVICE, HostSuiteProgram.class).jvmArg("-Xmx512m").start();
        client = new MpiwsClient(Duration.ofSeconds(60));
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
        if (hosts != null) {
            hosts.close();
        }
    }

    @Test
    void fiveRanksAllSoap() throws Exception {
        runSuite(5, "soap");
    }

    @Test
    void fourRanksAutomaticTransports() throws Exception {
        runSuite(4, "auto");
    }

    private static void runSuite(int p, String transport) throws Exception {
        List<Endpoint> eps = new ArrayList<>();
        for (int r = 0; r < p; r++) {
            eps.add(hosts.get(r % 2).endpoint(SERVICE));
        }
        String domain = DomainToken.generate();
        String token = DomainToken.generate();
        List<RunRequest.ProcessSlice> procs = List.of(new RunRequest.ProcessSlice("suite", SERVICE, p));
        for (int r = p - 1; r >= 0; r--) {
            client.run(eps.get(r).soapUrl(), new RunRequest(domain, r, eps, procs, Map.of("tests", TESTS), token, null, transport));
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(150);
        RankStatus[] st = new RankStatus[p];
        while (true) {
            boolean allFinal = true;
            for (int r = 0; r < p; r++) {
                st[r] = client.status(eps.get(r).soapUrl(), domain, r, new DomainToken(token).proveStatus(domain, r));
                allFinal &= st[r].isFinal();
                if (st[r].state().equals("failed")) {
                    throw new AssertionError("rank " + r + " over " + transport + " failed: " + st[r].failure());
                }
            }
            if (allFinal) {
                break;
            }
            if (System.nanoTime() > deadline) {
                client.abort(eps.get(0).soapUrl(), domain, new DomainToken(token).proveAbort(domain));
                throw new AssertionError("the suite over " + transport + " did not end in time (aborted)");
            }
            Thread.sleep(200);
        }
        for (int r = 0; r < p; r++) {
            assertEquals("done", st[r].state(), "rank " + r);
            assertEquals(String.valueOf(TESTS.split(",").length), st[r].outputsJson().get("passed"), "rank " + r);
        }
    }
}
