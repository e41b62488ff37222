package org.mpfl.runtime.p2p;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.Endpoint;
import org.mpfl.protocol.MpiwsClient;
import org.mpfl.protocol.RankStatus;
import org.mpfl.protocol.RunRequest;
import org.mpfl.protocol.launch.HostProcesses;

/**
 * A {@link ScenarioProgram} domain started on real service-host processes the way the engine
 * starts one ({@code run} on every rank, rank r on host r mod hosts), for tests that then talk to
 * the hosts themselves (attacks, hand-made stores): its domain ID, token and endpoints.
 */
record HostRuns(String domainId, String token, List<Endpoint> endpoints) {

    /** Starts {@code scenario} with {@code size} ranks; {@code transport} is forced between the hosts. */
    static HostRuns start(HostProcesses hosts, MpiwsClient client, String scenario, int size, Map<String, String> params,
                          String transport) {
        String domainId = DomainToken.generate();
        String token = DomainToken.generate();
        List<Endpoint> endpoints = new ArrayList<>();
        for (int r = 0; r < size; r++) {
            endpoints.add(hosts.get(r % hosts.size()).endpoint(ScenarioProgram.SERVICE));
        }
        Map<String, Object> p = new HashMap<>(params);
        p.put("scenario", scenario);
        var procs = List.of(new RunRequest.ProcessSlice("scenario", ScenarioProgram.SERVICE, size));
        for (int r = 0; r < size; r++) {
            try {
                client.run(endpoints.get(r).soapUrl(), new RunRequest(domainId, r, endpoints, procs, p, token, null, transport));
            } catch (MpiwsClient.MpiwsCallException e) {
                throw new IllegalStateException("run of rank " + r + " failed: " + e.getMessage(), e);
            }
        }
        return new HostRuns(domainId, token, endpoints);
    }

    /** The rank's status once final, or as it is when {@code timeout} has passed. */
    RankStatus awaitFinal(MpiwsClient client, int rank, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            RankStatus s = client.status(endpoints.get(rank).soapUrl(), domainId, rank,
                    new DomainToken(token).proveStatus(domainId, rank));
            if (s.isFinal() || System.nanoTime() > deadline) {
                return s;
            }
            Thread.sleep(50);
        }
    }

    /** The domain token's proof for a world-context DATA store with this header. */
    byte[] prove(int from, int to, int tag, long seq) {
        return new DomainToken(token).prove(domainId, 0, from, to, tag, seq,
                org.mpfl.runtime.transport.Envelope.Kind.DATA.ordinal());
    }
}
