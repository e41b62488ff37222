package org.mpfl.engine.registry;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;

/**
 * The service hosts the engine can place ranks on. Hosts announce themselves and then heartbeat;
 * a host whose last heartbeat is older than the timeout leaves the registry, as does one that says
 * goodbye or that an admin removes, and listeners hear of it and how ({@link Departure}), so runs with
 * ranks there fail over. Host-file entries never expire.
 *
 * <p>A host that refuses a deployment or a {@code run}, or does not answer {@code run} in time,
 * is put in {@linkplain Quarantine quarantine}: it stays registered (and visible, with the reason)
 * but {@link #placeable} leaves it out until the quarantine ends. Each offence in a row doubles the
 * time, up to a cap; quarantine is kept by host id across a leave and a new announcement of the same
 * process, so announcing again does not lift it. But it does not outlive the process it punished: an
 * announcement from another {@linkplain HostAnnouncement#instance instance} of the host (the process was
 * replaced, e.g. by the next Slurm job on the node) replaces the stale entry at once, tells the
 * lost-host listeners about the old one (its ranks are gone with it) and ends its quarantine; so does one
 * that comes after the punished process left (a Tomcat stopped to fix its settings and started again).
 */
public final class HostRegistry {
    private final Map<String, HostInfo> hosts = new ConcurrentHashMap<>();
    private final Relays relays = new Relays();
    private final Map<String, Quarantine> quarantines = new ConcurrentHashMap<>();
    /** The process (instance) each quarantine punished, so that another process ends it even after the host left. */
    private final Map<String, String> quarantinedInstances = new ConcurrentHashMap<>();
    private final List<BiConsumer<HostInfo, Departure>> lostListeners = new CopyOnWriteArrayList<>();
    private final Map<String, String> origins = new ConcurrentHashMap<>();
    private final Duration heartbeatTimeout;
    private final LongSupplier clock;

    public HostRegistry(Duration heartbeatTimeout) {
        this(heartbeatTimeout, System::currentTimeMillis);
    }

    /** With an explicit clock, for tests of expiry. */
    public HostRegistry(Duration heartbeatTimeout, LongSupplier clock) {
        this.heartbeatTimeout = heartbeatTimeout;
        this.clock = clock;
    }

    /** The relays, and which host is reached through which. */
    public Relays relays() {
        return relays;
    }

    /** Adds or replaces a host from its announcement; returns what the registry now holds. */
    public HostInfo announce(HostAnnouncement a) {
        return put(a, false);
    }

    /**
     * Adds or replaces a host from its announcement as {@link #announce} does, unless another live process holds the
     * host id: a host's credential is one host, and a second process started with it (on another machine, or a second
     * {@code mpflc host} with the same credential file) must not take the first one's entry while the first keeps
     * heartbeating it. A restart still replaces the entry at once when the old process said goodbye (no entry), and as
     * soon as the old entry has missed its heartbeats ({@link #stoppedAfter()}) when it was killed. Until then the
     * engine cannot tell a restart from a second process: the announcement is {@linkplain InstanceContest#pending()
     * pending}, and once the registered process heartbeats after the newcomer first asked, the newcomer is refused for
     * good. Announcements and entries without an instance id (older hosts) replace each other as before.
     *
     * @throws InstanceContest when another live process of the host is registered, or may be
     */
    public synchronized HostInfo announceUnlessLive(HostAnnouncement a) throws InstanceContest {
        String id = idOf(a);
        HostInfo old = id == null ? null : hosts.get(id);
        if (old == null || old.staticEntry() || old.instance() == null || a.instance() == null
                || old.instance().equals(a.instance()) || stopped(old)) {
            contenders.remove(id);
            return put(a, false);
        }
        Contender seen = contenders.get(id);
        if (seen == null || !seen.instance().equals(a.instance())) {
            contenders.put(id, new Contender(a.instance(), clock.getAsLong()));
            throw new InstanceContest(true, id, old, stoppedAfter());
        }
        if (old.lastHeartbeatMs() > seen.firstAskedMs()) {
            // the registered process beat after this one first asked: two live processes, the newcomer goes
            contenders.remove(id);
            throw new InstanceContest(false, id, old, stoppedAfter());
        }
        throw new InstanceContest(true, id, old, stoppedAfter());
    }

    /** A process that asked to take a live host's entry, and since when: its next ask is refused once the entry beats. */
    private record Contender(String instance, long firstAskedMs) {
    }

    /** Processes waiting to learn whether the host they announce is already running elsewhere, by host id. */
    private final Map<String, Contender> contenders = new ConcurrentHashMap<>();

    /**
     * How long without a heartbeat before a host's entry counts as left by a stopped process, which a new process of
     * the host replaces at once: half the heartbeat timeout, but at least one and a half heartbeat intervals (a beat
     * missed; the console shows such a host as late).
     */
    public Duration stoppedAfter() {
        return Duration.ofMillis(Math.max(heartbeatTimeout.toMillis() / 2, heartbeatInterval().toMillis() * 3 / 2));
    }

    private boolean stopped(HostInfo h) {
        return clock.getAsLong() - h.lastHeartbeatMs() > stoppedAfter().toMillis();
    }

    private static String idOf(HostAnnouncement a) {
        return a == null ? null : a.hostId() == null || a.hostId().isBlank() ? a.soapUrl() : a.hostId();
    }

    /**
     * Another process holds the host id an announcement names ({@link #announceUnlessLive}): {@link #pending()} while
     * the engine cannot tell yet whether that process still runs (ask again), else it does and the newcomer is refused.
     */
    public static final class InstanceContest extends Exception {
        private static final long serialVersionUID = 1L;
        private final boolean pending;
        private final transient HostInfo registered;

        InstanceContest(boolean pending, String hostId, HostInfo registered, Duration stoppedAfter) {
            super(pending
                    ? "host '" + hostId + "' is registered by another process at " + registered.soapUrl() + " that heartbeated"
                            + " recently: if it was stopped, this process takes its place once its entry misses its heartbeats"
                            + " (" + stoppedAfter.toMillis() + " ms without one); if it still runs, this one is refused"
                    : "host '" + hostId + "' is already running at " + registered.soapUrl() + " (another process with this"
                            + " credential, still heartbeating): stop that one first, or give this one a credential of its own"
                            + " (mpflc host-token --host-id NEW-ID -o FILE on the engine's machine)");
            this.pending = pending;
            this.registered = registered;
        }

        /** Whether the registered process may have stopped: the newcomer asks again. */
        public boolean pending() {
            return pending;
        }

        /** The entry of the registered process. */
        public HostInfo registered() {
            return registered;
        }
    }

    /** Adds the hosts of a static host file. */
    public void addStatic(List<HostAnnouncement> entries) {
        entries.forEach(a -> put(a, true));
    }

    private HostInfo put(HostAnnouncement a, boolean staticEntry) {
        if (a == null || a.soapUrl() == null || a.soapUrl().isBlank()) {
            throw new IllegalArgumentException("a host announcement needs soapUrl (the base URL of its SOAP services)");
        }
        String id = a.hostId() == null || a.hostId().isBlank() ? a.soapUrl() : a.hostId();
        Set<String> services = a.services() == null ? Set.of() : Set.copyOf(new TreeSet<>(a.services()));
        int capacity = a.capacity() == null || a.capacity() < 1 ? 1 : a.capacity();
        // a host that states no capacity has never promised a bound: it takes more ranks when every host
        // is full, as all hosts did before capacity was honoured (mpflc host and the WAR always state one)
        boolean oversubscribe = a.oversubscribe() != null ? a.oversubscribe() : a.capacity() == null;
        // a malformed site name is the announcement's fault (IllegalArgumentException: HTTP 400)
        HostInfo info = new HostInfo(id, a.soapUrl(), a.binaryAddress(), services, capacity, clock.getAsLong(), staticEntry,
                a.deployUrl(), oversubscribe, a.instance(), a.site());
        HostInfo old = hosts.put(id, info);
        if (old != null && old.instance() != null && info.instance() != null && !old.instance().equals(info.instance())) {
            // a new process under a known host id: the old one is gone (killed without saying goodbye),
            // and with it what it was quarantined for
            endQuarantine(id);
            tell(old, Departure.LOST);
        } else if (old == null && info.instance() != null && quarantinedInstances.containsKey(id)
                && !info.instance().equals(quarantinedInstances.get(id))) {
            // the punished process left (a Tomcat stopped to fix its settings) and another one came: not the offender
            endQuarantine(id);
        }
        return info;
    }

    /** Records a heartbeat; {@code false} when the host is unknown (it must announce again). */
    public boolean heartbeat(String hostId) {
        return heartbeat(hostId, null);
    }

    /**
     * Records a heartbeat of the process {@code instance} ({@code null}: not said, as older hosts beat); {@code false}
     * when the host is unknown, or its entry is another process's now (it must announce again, and is refused while
     * that process lives: {@link #announceUnlessLive}).
     */
    public boolean heartbeat(String hostId, String instance) {
        HostInfo beaten = hosts.computeIfPresent(hostId, (k, h) -> instance != null && h.instance() != null
                && !h.instance().equals(instance) ? h : h.withHeartbeat(clock.getAsLong()));
        return beaten != null && (instance == null || beaten.instance() == null || beaten.instance().equals(instance));
    }

    /**
     * How a host left the registry, in the words a run's error uses after "service host ID at URL": each one ends the
     * ranks there as far as the engine knows (a run with live ranks on it fails over as after any infrastructure fault).
     */
    public enum Departure {
        /** Found dead: its heartbeats stopped, it stopped answering, or a new process of it announced itself. */
        LOST("was lost"),
        /** It said goodbye ({@code DELETE} with its own credential), as a service host does when it stops. */
        LEFT("said goodbye as it stopped and left the registry"),
        /** An admin removed it ({@code DELETE} with the admin token or role), or revoked its credential. */
        REMOVED("was removed from the registry by an admin");

        private final String words;

        Departure(String words) {
            this.words = words;
        }

        /** What happened to the host, as in "service host h1 at URL " + words(). */
        public String words() {
            return words;
        }
    }

    /** Removes a host and tells the listeners how it went (their runs with ranks there fail over). */
    public void remove(String hostId, Departure how) {
        HostInfo gone = hosts.remove(hostId);
        if (gone != null) {
            tell(gone, how);
        }
    }

    /**
     * A host process's goodbye: its entry leaves (listeners hear {@link Departure#LEFT}) unless another process of the host
     * holds it now — a second process refused because the first lives says goodbye too as it stops, and must not take
     * the live one's entry with it. {@code instance} {@code null} (a host that does not say): whatever process holds it.
     */
    public void leave(String hostId, String instance) {
        HostInfo[] gone = new HostInfo[1];
        hosts.computeIfPresent(hostId, (k, h) -> {
            if (instance != null && h.instance() != null && !h.instance().equals(instance)) {
                return h;
            }
            gone[0] = h;
            return null;
        });
        if (gone[0] != null) {
            tell(gone[0], Departure.LEFT);
        }
    }

    /**
     * Removes a host and tells nobody: only for a host known to hold no ranks (a capacity provider released it idle),
     * or in tests.
     */
    public void removeQuietly(String hostId) {
        hosts.remove(hostId);
    }

    private void tell(HostInfo gone, Departure how) {
        lostListeners.forEach(l -> l.accept(gone, how));
    }

    /**
     * A host that is gone although it may not have said so, or said goodbye as its job ended (a
     * capacity provider saw its scheduler job end): its entry goes if it is still this process's, and
     * listeners hear of it as of a lost host (its ranks are gone with it).
     */
    public void lost(HostInfo host) {
        hosts.computeIfPresent(host.hostId(), (id, h) -> java.util.Objects.equals(h.instance(), host.instance()) ? null : h);
        tell(host, Departure.LOST);
    }

    /**
     * Where a host came from, as users should read it in a lost-host message (e.g. "Slurm job 1234 on
     * node n1"); {@code null} forgets it.
     */
    public void origin(String hostId, String origin) {
        if (origin == null) {
            origins.remove(hostId);
        } else {
            origins.put(hostId, origin);
        }
    }

    /** A host's id, with where it came from when a provider said so: {@code slurm-ab12 (Slurm job 1234 on node n1)}. */
    public String describe(String hostId) {
        String origin = origins.get(hostId);
        return origin == null ? hostId : hostId + " (" + origin + ")";
    }

    /** Marks {@code service} as available on a host (after a deployment). */
    public void addService(String hostId, String service) {
        hosts.computeIfPresent(hostId, (k, h) -> h.withService(service));
    }

    /** Drops hosts whose heartbeat is older than the timeout; returns them. */
    public List<HostInfo> expire() {
        long now = clock.getAsLong();
        List<HostInfo> dead = new ArrayList<>();
        for (HostInfo h : hosts.values()) {
            if (!h.staticEntry() && now - h.lastHeartbeatMs() > heartbeatTimeout.toMillis()) {
                dead.add(h);
            }
        }
        dead.forEach(h -> remove(h.hostId(), Departure.LOST));
        // ended quarantines of hosts that are gone need not be remembered (the map stays small)
        quarantines.entrySet().removeIf(q -> !q.getValue().active(now) && !hosts.containsKey(q.getKey()));
        quarantinedInstances.keySet().retainAll(quarantines.keySet());
        return dead;
    }

    /**
     * Quarantines a host for {@code first} times 2<sup>offences in a row - 1</sup>, at most {@code max}.
     * While a quarantine is active a further report (another run that saw the same fault at the same
     * time) does not count as a new offence.
     *
     * @param reason what the host did, readable by a user
     * @return the quarantine now in force
     */
    public Quarantine quarantine(String hostId, String reason, Duration first, Duration max) {
        long now = clock.getAsLong();
        HostInfo punished = hosts.get(hostId);
        if (punished != null && punished.instance() != null) {
            quarantinedInstances.put(hostId, punished.instance());
        }
        return quarantines.compute(hostId, (k, q) -> {
            if (q != null && q.active(now)) {
                return q;
            }
            int offences = q == null ? 1 : q.offences() + 1;
            long ms = first.toMillis();
            for (int i = 1; i < offences && ms < max.toMillis(); i++) {
                ms *= 2;
            }
            return new Quarantine(reason, now, now + Math.min(ms, max.toMillis()), offences);
        });
    }

    /**
     * A host accepted work again: its offences are forgotten (the next one starts at the first
     * duration). An active quarantine stays in force.
     */
    public void forgive(String hostId) {
        long now = clock.getAsLong();
        quarantines.computeIfPresent(hostId, (k, q) -> q.active(now) ? q : null);
    }

    private void endQuarantine(String hostId) {
        quarantines.remove(hostId);
        quarantinedInstances.remove(hostId);
    }

    /** The host's quarantine, active or ended, if it has offences on record. */
    public Optional<Quarantine> quarantine(String hostId) {
        return Optional.ofNullable(quarantines.get(hostId));
    }

    /** Whether the host is in quarantine now. */
    public boolean quarantined(String hostId) {
        Quarantine q = quarantines.get(hostId);
        return q != null && q.active(clock.getAsLong());
    }

    /** Live hosts that are not in quarantine, sorted by id. */
    public List<HostInfo> placeable() {
        return hosts().stream().filter(h -> !quarantined(h.hostId())).toList();
    }

    /** Hears about hosts that left the registry other than quietly (lost, said goodbye, removed), and how. */
    public void onHostLost(BiConsumer<HostInfo, Departure> listener) {
        lostListeners.add(listener);
    }

    /** Live hosts, sorted by id so placement is deterministic. */
    public List<HostInfo> hosts() {
        return hosts.values().stream().sorted(Comparator.comparing(HostInfo::hostId)).toList();
    }

    public Optional<HostInfo> host(String hostId) {
        return Optional.ofNullable(hosts.get(hostId));
    }

    /** How often a host should heartbeat: a third of the timeout, at least every 500 ms apart. */
    public Duration heartbeatInterval() {
        return Duration.ofMillis(Math.max(500, heartbeatTimeout().toMillis() / 3));
    }

    public Duration heartbeatTimeout() {
        return heartbeatTimeout;
    }

    private volatile Duration engineLossGrace = Duration.ZERO;

    /**
     * How long hosts are to keep running their ranks while they cannot reach the engine (told to
     * each host in the answer to its announcement): a restarted engine re-attaches to runs whose
     * ranks are still there.
     */
    public Duration engineLossGrace() {
        return engineLossGrace;
    }

    /** Sets {@link #engineLossGrace()} (at start-up). */
    public void engineLossGrace(Duration grace) {
        engineLossGrace = grace;
    }
}
