package org.mpfl.runtime.p2p;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.Endpoint;
import org.mpfl.protocol.MpiwsClient;
import org.mpfl.protocol.RankStatus;
import org.mpfl.protocol.RunMessages;
import org.mpfl.protocol.RunRequest;
import org.mpfl.protocol.launch.HostProcess;
import org.mpfl.protocol.launch.HostProcesses;
import org.mpfl.runtime.transport.Payload;
import org.mpfl.runtime.transport.Transport;
import org.mpfl.runtime.transport.binary.BinaryTransport;
import org.mpfl.runtime.transport.soap.SoapTransport;

/**
 * Ranks in two real service-host processes (Axis2 over HTTP, started with {@code -Xmx512m} by the
 * testkit), rank r in host r mod 2, driven exactly as the engine drives them: {@code run} on every
 * rank over SOAP, outputs and failures read back with {@code status}, {@code abort} with a token
 * proof. The transport between the hosts is forced: {@code soap} (SOAP 1.2/MTOM over HTTP) or
 * {@code binary} (the binary channel between the same hosts). The soap and binary fixtures of a class
 * share one pair of host processes (each run is a domain of its own, the transport is the run's), started
 * by the first fixture and stopped when the last one is closed: two host starts per class instead of four.
 */
final class ServiceHostFixture implements TransportFixture {
    private final String transport;
    private final HostProcesses hosts;
    private final MpiwsClient client = new MpiwsClient(Duration.ofSeconds(30));

    /** The host pair the open fixtures share, and how many open fixtures use it. */
    private static HostProcesses shared;
    private static int users;

    private ServiceHostFixture(String transport) {
        this.transport = transport;
        this.hosts = acquireHosts();
    }

    private static synchronized HostProcesses acquireHosts() {
        if (shared == null) {
            try {
                shared = HostProcesses.builder().count(2).service(ScenarioProgram.SERVICE, ScenarioProgram.class)
                        .jvmArg("-Xmx512m").start();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        users++;
        return shared;
    }

    private static synchronized void releaseHosts() {
        if (--users == 0) {
            shared.close();
            shared = null;
        }
    }

    static ServiceHostFixture soap() {
        return new ServiceHostFixture("soap");
    }

    static ServiceHostFixture binary() {
        return new ServiceHostFixture("binary");
    }

    @Override
    public String name() {
        return transport + " between two service-host processes";
    }

    @Override
    public String toString() {
        return name();
    }

    @Override
    public Started start(String scenario, int size, Map<String, String> params) {
        String domainId = DomainToken.generate();
        String token = DomainToken.generate();
        List<Endpoint> endpoints = new ArrayList<>();
        for (int r = 0; r < size; r++) {
            endpoints.add(host(r).endpoint(ScenarioProgram.SERVICE));
        }
        Map<String, Object> p = new HashMap<>(params);
        p.put("scenario", scenario);
        List<RunRequest.ProcessSlice> procs = List.of(new RunRequest.ProcessSlice("scenario", ScenarioProgram.SERVICE, size));
        for (int r = 0; r < size; r++) {
            try {
                client.run(endpoints.get(r).soapUrl(), new RunRequest(domainId, r, endpoints, procs, p, token, null, transport));
            } catch (MpiwsClient.MpiwsCallException e) {
                HostProcess h = host(r);
                throw new IllegalStateException("run of rank " + r + " failed: " + e.getMessage() + " (host "
                        + h.hostId() + (h.isAlive() ? " alive" : " exited with " + h.process().exitValue()) + ", log "
                        + h.log() + ")", e);
            }
        }
        return new Started() {
            @Override
            public String domainId() {
                return domainId;
            }

            @Override
            public void inject(int from, int to, int tag, long seq, Payload payload) {
                try (Transport wire = "soap".equals(transport) ? new SoapTransport() : new BinaryTransport(10_000, id -> new DomainToken(token))) {
                    TransportFixture.injectAsASender(wire, endpoints.get(to), domainId, token, from, to, tag, seq, payload);
                }
            }

            @Override
            public void abort() {
                byte[] proof = new DomainToken(token).proveAbort(domainId);
                for (HostProcess h : hosts.hosts()) {
                    try {
                        client.abort(h.serviceUrl(ScenarioProgram.SERVICE), domainId, proof);
                    } catch (MpiwsClient.MpiwsCallException e) {
                        throw new IllegalStateException("abort failed: " + e.getMessage(), e);
                    }
                }
            }

            @Override
            public List<Result> await(Duration timeout) {
                long deadline = System.nanoTime() + timeout.toNanos();
                List<Result> results = new ArrayList<>();
                for (int r = 0; r < size; r++) {
                    RankStatus s = null;
                    while (true) {
                        try {
                            s = client.status(endpoints.get(r).soapUrl(), domainId, r,
                                    new DomainToken(token).proveStatus(domainId, r));
                        } catch (MpiwsClient.MpiwsCallException e) {
                            throw new IllegalStateException("status of rank " + r + " failed: " + e.getMessage(), e);
                        }
                        if (s.isFinal() || System.nanoTime() > deadline) {
                            break;
                        }
                        try {
                            Thread.sleep(20);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            throw new IllegalStateException("interrupted", e);
                        }
                    }
                    if (!s.isFinal()) {
                        throw new AssertionError(name() + ": rank " + r + " still " + s.state() + " after " + timeout);
                    }
                    Map<String, String> outputs = new LinkedHashMap<>();
                    s.outputsJson().forEach((k, v) -> outputs.put(k, String.valueOf(RunMessages.parseJsonValue(v))));
                    results.add(new Result(r, outputs, "done".equals(s.state()) ? null : s.failure()));
                }
                return results;
            }
        };
    }

    private HostProcess host(int rank) {
        return hosts.get(rank % hosts.size());
    }

    @Override
    public void close() {
        client.close();
        releaseHosts();
    }
}
