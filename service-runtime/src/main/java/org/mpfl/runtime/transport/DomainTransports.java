package org.mpfl.runtime.transport;

import org.mpfl.runtime.settings.RuntimeSettings;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.mpfl.protocol.Endpoint;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transports of one domain in one host, settled per peer host once for the domain's lifetime
 * (the spec: the binary channel is "negotiated when the domain is set up, with fallback to SOAP/MTOM
 * when it cannot be reached"). In {@code auto} mode the domain's set-up starts one probe of every
 * other host's binary address, all at once, its connection bounded by {@link #PROBE_TIMEOUT_MS} (longer
 * for a peer reached through a relay or by a reverse connection) and then its answer by
 * {@link ProbeTimeouts#ANSWER_MS} ({@link ProbeTimeouts}); a peer whose
 * binary channel said HELLO in time gets the binary channel, any other SOAP — for every message of
 * the domain, so a firewalled binary port costs one bounded wait per domain, not a stall per message
 * (and a connection left open by an earlier domain, which a firewall may have silenced since, is not
 * taken as proof). Forced modes need no probe: see {@link TransportSelector}.
 */
public final class DomainTransports {
    private static final Logger LOG = LoggerFactory.getLogger(DomainTransports.class);
    /**
     * How long the set-up probe waits for a direct peer's port to take its connection
     * ({@code mpfl.binary.probeTimeoutMs}): far above a LAN's round trip, and what a port that drops
     * connections (a firewall) costs once per domain.
     */
    public static final long PROBE_TIMEOUT_MS = RuntimeSettings.BINARY_PROBE_TIMEOUT_MS.get();

    private final String domainId;
    private final Transport local;
    private final Transport binary;
    private final Transport soap;
    private final Executor probes;
    private final long probeTimeoutMs;
    /** Per binary address: whether it answered the probe (settled once; completed by the probe or a timed-out wait). */
    private final ConcurrentHashMap<String, CompletableFuture<Boolean>> binaryAnswers = new ConcurrentHashMap<>();

    DomainTransports(String domainId, Transport local, Transport binary, Transport soap, List<Endpoint> endpoints,
                     String requestedMode, Executor probes, long probeTimeoutMs) {
        this.domainId = domainId;
        this.local = local;
        this.binary = binary;
        this.soap = soap;
        this.probes = probes;
        this.probeTimeoutMs = probeTimeoutMs;
        if (TransportSelector.effectiveMode(requestedMode).equals("auto") && negotiates()) {
            probe(endpoints);
        }
    }

    /** Whether the auto mode has a choice to make: both a binary channel and SOAP to fall back to. */
    private boolean negotiates() {
        return binary != null && soap != null;
    }

    /** Starts one probe of the binary addresses of {@code peers} not probed yet (other hosts only). */
    private void probe(List<Endpoint> peers) {
        Map<String, Endpoint> byAddress = new LinkedHashMap<>();
        for (Endpoint p : peers) {
            if (p.binaryAddress() != null && !local.reaches(p) && !binaryAnswers.containsKey(p.binaryAddress())) {
                byAddress.putIfAbsent(p.binaryAddress(), p);
            }
        }
        if (byAddress.isEmpty()) {
            return;
        }
        Map<String, CompletableFuture<Boolean>> mine = new LinkedHashMap<>();
        for (String address : byAddress.keySet()) {
            CompletableFuture<Boolean> f = new CompletableFuture<>();
            if (binaryAnswers.putIfAbsent(address, f) == null) {
                mine.put(address, f);
            }
        }
        if (mine.isEmpty()) {
            return;
        }
        List<Endpoint> targets = new ArrayList<>();
        mine.keySet().forEach(a -> targets.add(byAddress.get(a)));
        Runnable run = () -> {
            Set<String> settled = new java.util.HashSet<>();
            try {
                long started = System.nanoTime();
                long pauseMs = 200;
                List<Endpoint> left = targets;
                for (;;) {
                    Set<String> answered = binary.reachable(domainId, left, probeTimeoutMs).stream().map(Endpoint::binaryAddress)
                            .collect(Collectors.toSet());
                    for (Endpoint p : left) {
                        if (answered.contains(p.binaryAddress()) || ProbeTimeouts.direct(p)) {
                            settle(p, mine.get(p.binaryAddress()), answered.contains(p.binaryAddress()), settled);
                        }
                    }
                    // a relayed or reverse peer answers only once its rank's domain is open at the far host, which a
                    // loaded engine's run call (and the relay's check of its proof) may make later than the relay waits:
                    // it is dialled again while it may still open, unless a message gave up waiting for it meanwhile
                    left = left.stream().filter(p -> !settled.contains(p.binaryAddress()) && !mine.get(p.binaryAddress()).isDone())
                            .toList();
                    if (left.isEmpty() || System.nanoTime() - started > TimeUnit.MILLISECONDS.toNanos(ProbeTimeouts.INDIRECT_SETUP_MS)) {
                        break;
                    }
                    Thread.sleep(pauseMs);
                    pauseMs = Math.min(2000, pauseMs * 2);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                for (Endpoint p : targets) {
                    if (!settled.contains(p.binaryAddress())) {
                        settle(p, mine.get(p.binaryAddress()), false, settled);
                    }
                }
            }
        };
        try {
            probes.execute(run);
        } catch (RejectedExecutionException e) {
            mine.values().forEach(f -> f.complete(false));
        }
    }

    /** Settles the probe's answer for {@code peer} (once) and says, for an indirect peer, which transport it got. */
    private void settle(Endpoint peer, CompletableFuture<Boolean> answer, boolean ok, Set<String> settled) {
        settled.add(peer.binaryAddress());
        long bound = ProbeTimeouts.forPeer(peer, probeTimeoutMs);
        if (answer.complete(ok) && !ok) {
            LOG.info("domain {}: the binary channel at {} did not answer (connection bound {} ms, then {} ms for its HELLO{}); "
                    + "messages to that host go over SOAP for this domain", shortId(), peer.binaryAddress(), bound,
                    ProbeTimeouts.ANSWER_MS, ProbeTimeouts.direct(peer) ? ""
                            : ", dialled again for " + ProbeTimeouts.INDIRECT_SETUP_MS / 1000 + " s");
        } else if (ok && bound > probeTimeoutMs) {
            // said for an indirect pair only (a relay or a reverse connection): which transport it got
            LOG.info("domain {}: the binary channel at {} answered (not direct, probe bound {} ms); messages "
                    + "to that host go over it for this domain", shortId(), peer.binaryAddress(), bound);
        }
    }

    /**
     * The transport to carry this domain's messages to {@code peer} in {@code requestedMode} (see
     * {@link TransportSelector#effectiveMode}). In auto mode it may wait for the set-up probe, at
     * most about {@link ProbeTimeouts#setup}.
     *
     * @throws TransportException final when the mode cannot reach the peer at all
     */
    public Transport select(Endpoint peer, String requestedMode) throws TransportException {
        String mode = TransportSelector.effectiveMode(requestedMode);
        switch (mode) {
            case "local":
                if (local.reaches(peer)) {
                    return local;
                }
                throw unreachable(mode, peer, "the peer lives in another host process (" + peer.hostId() + ")");
            case "binary":
                if (binary == null) {
                    throw unreachable(mode, peer, "this host offers no binary channel");
                }
                if (peer.binaryAddress() == null) {
                    throw unreachable(mode, peer, "the peer advertises no binary address");
                }
                // forced: no fallback; a peer that does not answer (yet) fails its stores retryably
                return binary;
            case "soap":
                if (soap == null) {
                    throw unreachable(mode, peer, "this host has no SOAP transport");
                }
                return soap;
            default:
                if (local.reaches(peer)) {
                    return local;
                }
                if (binary != null && peer.binaryAddress() != null) {
                    if (soap == null || binaryAnswers(peer)) {
                        // without SOAP there is nothing to fall back to: binary, retrying until the deadline
                        return binary;
                    }
                    return soap;
                }
                if (soap != null) {
                    return soap;
                }
                throw unreachable(mode, peer, "neither the local nor the binary transport reaches it and this "
                        + "host has no SOAP transport");
        }
    }

    /** The set-up probe's answer for the peer's binary address (probing it now if set-up did not). */
    private boolean binaryAnswers(Endpoint peer) {
        CompletableFuture<Boolean> f = binaryAnswers.get(peer.binaryAddress());
        if (f == null) {
            probe(List.of(peer));
            f = binaryAnswers.get(peer.binaryAddress());
        }
        boolean interrupted = false;
        try {
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(
                    ProbeTimeouts.setup(peer, probeTimeoutMs) + 1000);
            while (true) {
                try {
                    return f.get(Math.max(1, end - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (TimeoutException | ExecutionException e) {
                    // the probe did not finish in its own bound (starved of threads?): settle it as unreachable
                    f.complete(false);
                    return f.getNow(false);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private String shortId() {
        return domainId.length() > 8 ? domainId.substring(0, 8) + "…" : domainId;
    }

    private static TransportException unreachable(String mode, Endpoint peer, String why) {
        return new TransportException("transport " + mode + " cannot reach " + peer.soapUrl() + ": " + why, true, null);
    }
}
