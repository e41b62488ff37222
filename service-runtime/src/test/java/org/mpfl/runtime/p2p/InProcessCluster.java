package org.mpfl.runtime.p2p;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.Endpoint;
import org.mpfl.runtime.api.RankProgram;
import org.mpfl.runtime.transport.ObjectTypes;

/**
 * Several service hosts' messaging in one JVM, without Axis2: for tests and benchmarks. Each host
 * has its own registry and binary channel on loopback, so ranks on different hosts talk over real
 * TCP and ranks on one host over the local transport (or forced binary).
 *
 * <pre>{@code
 * try (InProcessCluster cluster = InProcessCluster.start(2, MessagingSettings.fromSystemProperties())) {
 *     InProcessCluster.Run run = cluster.run(new int[] {0, 1}, "auto", Map.of(), ctx -> { ... });
 *     run.await(Duration.ofSeconds(10)).throwIfFailed();
 * }
 * }</pre>
 */
public final class InProcessCluster implements AutoCloseable {
    private final List<MessagingHost> hosts = new ArrayList<>();
    /** The site of each host ({@code null}: every host in the default site). */
    private String[] siteOfHost;

    private InProcessCluster() {
    }

    public static InProcessCluster start(int hostCount, MessagingSettings settings) {
        return start(hostCount, settings, org.mpfl.runtime.transport.MemoryBudget::fromSystemProperties);
    }

    /** A cluster whose hosts each get their own memory budget from {@code budgets}. */
    public static InProcessCluster start(int hostCount, MessagingSettings settings,
                                         java.util.function.Supplier<org.mpfl.runtime.transport.MemoryBudget> budgets) {
        InProcessCluster c = new InProcessCluster();
        for (int i = 0; i < hostCount; i++) {
            c.hosts.add(MessagingHost.start("inproc-" + i + "-" + DomainToken.generate().substring(0, 6),
                    "127.0.0.1", 0, "127.0.0.1", settings, budgets.get(), null));
        }
        return c;
    }

    public MessagingHost host(int i) {
        return hosts.get(i);
    }

    public int hostCount() {
        return hosts.size();
    }

    /** Puts host {@code i} in site {@code siteOfHost[i]}: the endpoints of later runs carry it, as the engine's do. */
    public InProcessCluster withSites(String... siteOfHost) {
        if (siteOfHost.length != hosts.size()) {
            throw new IllegalArgumentException(siteOfHost.length + " sites for " + hosts.size() + " hosts");
        }
        this.siteOfHost = siteOfHost.clone();
        return this;
    }

    /** Endpoints of a domain whose rank {@code r} lives in host {@code hostOfRank[r]}. */
    public List<Endpoint> endpoints(int[] hostOfRank) {
        List<Endpoint> eps = new ArrayList<>();
        for (int r = 0; r < hostOfRank.length; r++) {
            Endpoint e = hosts.get(hostOfRank[r]).endpoint("inproc://" + hostOfRank[r] + "/rank/" + r);
            eps.add(siteOfHost == null ? e : new Endpoint(e.soapUrl(), e.binaryAddress(), e.hostId(), siteOfHost[hostOfRank[r]]));
        }
        return eps;
    }

    /** Starts a new domain with one rank per entry of {@code hostOfRank}, each running {@code program} on its own thread. */
    public Run run(int[] hostOfRank, String transportMode, Map<String, Object> params, RankProgram program) {
        String domainId = DomainToken.generate();
        String token = DomainToken.generate();
        List<Endpoint> endpoints = endpoints(hostOfRank);
        List<RankInstance> instances = new ArrayList<>();
        for (int r = 0; r < hostOfRank.length; r++) {
            MessagingHost h = hosts.get(hostOfRank[r]);
            RankInstance instance = h.registry().open(domainId, r, token, endpoints, h.selector(), transportMode);
            instance.allowObjectTypes(ObjectTypes.forProgram(program)); // as the service host does
            instances.add(instance);
        }
        Run run = new Run(domainId, token);
        for (RankInstance instance : instances) {
            CompletableFuture<RankResult> f = new CompletableFuture<>();
            run.results.add(f);
            InProcessRankContext ctx = new InProcessRankContext(instance, params);
            Thread t = new Thread(() -> f.complete(runRank(instance, ctx, program)),
                    "rank-" + instance.rank() + "-" + Domain.shortId(domainId));
            t.setDaemon(true);
            t.start();
        }
        return run;
    }

    private RankResult runRank(RankInstance instance, InProcessRankContext ctx, RankProgram program) {
        Throwable failure = null;
        try {
            program.run(ctx);
            instance.finish();
        } catch (Throwable t) {
            failure = t;
            instance.close();
            for (MessagingHost h : hosts) {
                h.registry().abortLocally(instance.domainId(), "rank " + instance.rank() + " failed: " + t);
            }
        }
        return new RankResult(instance.rank(), new LinkedHashMap<>(ctx.outputs()), failure);
    }

    /** The end of one rank: its outputs and its failure ({@code null} if it succeeded). */
    public record RankResult(int rank, Map<String, Object> outputs, Throwable failure) {
    }

    /** A running domain. */
    public final class Run {
        private final String domainId;
        private final String token;
        private final List<CompletableFuture<RankResult>> results = new ArrayList<>();

        Run(String domainId, String token) {
            this.domainId = domainId;
            this.token = token;
        }

        public String domainId() {
            return domainId;
        }

        public String token() {
            return token;
        }

        /** Aborts the domain in every host, with a proof, as the engine would. */
        public void abort() {
            for (MessagingHost h : hosts) {
                h.registry().abort(domainId, new DomainToken(token).proveAbort(domainId));
            }
        }

        /** Waits for every rank (bounded); aborts the domain and fails if one does not end in time. */
        public List<RankResult> await(Duration timeout) {
            long deadline = System.nanoTime() + timeout.toNanos();
            List<RankResult> out = new ArrayList<>();
            for (CompletableFuture<RankResult> f : results) {
                try {
                    out.add(f.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
                } catch (TimeoutException e) {
                    abort();
                    throw new AssertionError("domain " + Domain.shortId(domainId) + " did not end within " + timeout
                            + " (aborted it)");
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            }
            return out;
        }
    }

    @Override
    public void close() {
        for (MessagingHost h : hosts) {
            h.close();
        }
    }
}
