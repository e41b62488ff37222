package org.mpfl.runtime.p2p;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.mpfl.testing.childjvm.ChildJvm;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.Endpoint;
import org.mpfl.runtime.transport.ObjectTypes;
import org.mpfl.runtime.transport.Payload;
import org.mpfl.runtime.transport.TransportException;
import org.mpfl.runtime.transport.binary.BinaryTransport;

/**
 * Ranks in two JVM processes over the binary channel only: even ranks in this JVM, odd ranks in a
 * child JVM ({@link BinaryPeerProcess}, {@code -Xmx512m}). The child is killed in {@link #close()}
 * and by a shutdown hook; every wait is bounded.
 */
final class TwoProcessFixture implements TransportFixture {
    private final MessagingHost host;
    private final Process child;
    private final PrintStream toChild;
    private final String childHostId;
    private final String childAddress;
    private final Map<String, CompletableFuture<Result>> childResults = new ConcurrentHashMap<>();
    private final Thread killer;

    TwoProcessFixture() {
        host = MessagingHost.start("parent-" + ProcessHandle.current().pid(), "127.0.0.1", 0, "127.0.0.1",
                MessagingSettings.fromSystemProperties(), null);
        try {
            child = new ProcessBuilder(ChildJvm.command(List.of("-Xmx512m"), BinaryPeerProcess.class.getName()))
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start();
        } catch (java.io.IOException e) {
            host.close();
            throw new IllegalStateException("cannot start the child JVM", e);
        }
        killer = new Thread(child::destroyForcibly);
        Runtime.getRuntime().addShutdownHook(killer);
        toChild = new PrintStream(child.getOutputStream(), true, StandardCharsets.UTF_8);
        BufferedReader fromChild = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<String> ready = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try {
                for (String line = fromChild.readLine(); line != null; line = fromChild.readLine()) {
                    if (line.startsWith("READY ")) {
                        ready.complete(line);
                    } else if (line.startsWith("RESULT ")) {
                        onResult(line);
                    }
                }
            } catch (java.io.IOException ignored) {
                // the child is gone
            }
            ready.completeExceptionally(new IllegalStateException("child JVM ended before it was ready"));
        }, "child-stdout");
        reader.setDaemon(true);
        reader.start();
        try {
            String[] f = ready.get(30, TimeUnit.SECONDS).split(" ");
            childHostId = f[1];
            childAddress = f[2];
        } catch (Exception e) {
            close();
            throw new IllegalStateException("child JVM did not report ready within 30 s", e);
        }
    }

    private void onResult(String line) {
        String[] f = line.split(" ");
        Base64.Decoder d = Base64.getDecoder();
        Map<String, String> outputs = new LinkedHashMap<>();
        for (String kv : new String(d.decode(f[3]), StandardCharsets.UTF_8).split("\n")) {
            int eq = kv.indexOf('=');
            if (eq > 0) {
                outputs.put(kv.substring(0, eq), kv.substring(eq + 1));
            }
        }
        String failure = new String(d.decode(f[4]), StandardCharsets.UTF_8);
        int rank = Integer.parseInt(f[2]);
        childResults.computeIfAbsent(f[1] + "/" + rank, k -> new CompletableFuture<>())
                .complete(new Result(rank, outputs, failure.isEmpty() ? null : failure));
    }

    @Override
    public String name() {
        return "binary-2-processes";
    }

    @Override
    public Started start(String scenario, int size, Map<String, String> params) {
        String domainId = DomainToken.generate();
        String token = DomainToken.generate();
        List<Endpoint> endpoints = new ArrayList<>();
        StringJoiner spec = new StringJoiner(",");
        StringJoiner childRanks = new StringJoiner(",");
        for (int r = 0; r < size; r++) {
            boolean here = r % 2 == 0;
            Endpoint e = here ? host.endpoint("parent://" + r) : new Endpoint("child://" + r, childAddress, childHostId);
            endpoints.add(e);
            spec.add(e.hostId() + "@" + e.binaryAddress());
            if (!here) {
                childRanks.add(Integer.toString(r));
                childResults.computeIfAbsent(domainId + "/" + r, k -> new CompletableFuture<>());
            }
        }
        StringJoiner p = new StringJoiner(";");
        params.forEach((k, v) -> p.add(k + "=" + v));
        toChild.println("RUN " + domainId + " " + token + " binary " + scenario + " " + spec + " "
                + (params.isEmpty() ? "-" : p.toString()) + " " + childRanks);
        List<CompletableFuture<Result>> results = new ArrayList<>();
        for (int r = 0; r < size; r++) {
            if (r % 2 == 0) {
                RankInstance instance = host.registry().open(domainId, r, token, endpoints, host.selector(), "binary");
                instance.allowObjectTypes(ObjectTypes.forProgram(P2PScenarios.named(scenario))); // as the service host does
                CompletableFuture<Result> f = new CompletableFuture<>();
                Thread t = new Thread(() -> f.complete(runRank(instance, new HashMap<>(params), scenario)), "parent-rank-" + r);
                t.setDaemon(true);
                t.start();
                results.add(f);
            } else {
                results.add(childResults.get(domainId + "/" + r));
            }
        }
        return new Started() {
            @Override
            public String domainId() {
                return domainId;
            }

            @Override
            public void inject(int from, int to, int tag, long seq, Payload payload) {
                try (BinaryTransport wire = new BinaryTransport(10_000, id -> new DomainToken(token))) {
                    TransportFixture.injectAsASender(wire, endpoints.get(to), domainId, token, from, to, tag, seq, payload);
                }
            }

            @Override
            public void abort() {
                byte[] proof = new DomainToken(token).proveAbort(domainId);
                try (BinaryTransport wire = new BinaryTransport(5000, id -> new DomainToken(token))) {
                    wire.abort(host.endpoint("parent"), domainId, proof);
                    wire.abort(new Endpoint("child", childAddress, childHostId), domainId, proof);
                } catch (TransportException e) {
                    throw new IllegalStateException(e);
                }
            }

            @Override
            public List<Result> await(Duration timeout) {
                long deadline = System.nanoTime() + timeout.toNanos();
                List<Result> out = new ArrayList<>();
                for (CompletableFuture<Result> f : results) {
                    try {
                        out.add(f.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
                    } catch (Exception e) {
                        abort();
                        throw new AssertionError("domain did not end within " + timeout + " (aborted it)", e);
                    }
                }
                for (int r = 1; r < size; r += 2) {
                    childResults.remove(domainId + "/" + r);
                }
                return out;
            }
        };
    }

    private Result runRank(RankInstance instance, Map<String, Object> params, String scenario) {
        InProcessRankContext ctx = new InProcessRankContext(instance, params);
        String failure = null;
        try {
            P2PScenarios.named(scenario).run(ctx);
            instance.finish();
        } catch (Throwable t) {
            failure = t.getClass().getSimpleName() + ": " + t.getMessage();
            instance.close();
            host.registry().abortLocally(instance.domainId(), "rank " + instance.rank() + " failed: " + t);
        }
        Map<String, String> outputs = new LinkedHashMap<>();
        ctx.outputs().forEach((k, v) -> outputs.put(k, String.valueOf(v)));
        return new Result(instance.rank(), outputs, failure);
    }

    @Override
    public void close() {
        try {
            toChild.println("EXIT");
            if (!child.waitFor(5, TimeUnit.SECONDS)) {
                child.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            child.destroyForcibly();
            Thread.currentThread().interrupt();
        } finally {
            if (child.isAlive()) {
                child.destroyForcibly();
            }
            try {
                Runtime.getRuntime().removeShutdownHook(killer);
            } catch (IllegalStateException ignored) {
                // already shutting down
            }
            host.close();
        }
    }

    @Override
    public String toString() {
        return name();
    }
}
