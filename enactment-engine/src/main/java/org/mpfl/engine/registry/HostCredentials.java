package org.mpfl.engine.registry;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.HostCredential;

/**
 * The credentials of the service hosts (see {@code docs/security.md}, "Credentials"): issues one per
 * host id, checks what hosts present ({@code Authorization: Bearer ID.SECRET}), revokes, and gives the
 * engine the key it authenticates to one host with. Of a secret the engine keeps only its
 * {@linkplain HostCredential#verifier verifier} (SHA-256) and the {@linkplain HostCredential#engineKey
 * key derived from it}; both are persisted through {@link Persistence}, so credentials survive an
 * engine restart. Nothing here logs a secret.
 */
public final class HostCredentials {
    /**
     * What a credential may be used as. A host's announces a service host and proves it to relays; a relay's runs
     * {@code mpflc relay} and asks the engine to check hosts' proofs. Neither does the other's part: a host's
     * credential that could ask the engine about proofs would make the engine an oracle for anyone holding one.
     */
    public enum Kind {
        HOST, RELAY;

        /** As stored and in JSON: {@code host}, {@code relay}. */
        public String wire() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        /** The kind {@link #wire} names; {@code null} or blank: a host's; anything else is an error. */
        public static Kind of(String wire) {
            if (wire == null || wire.isBlank() || wire.equals("host")) {
                return HOST;
            }
            if (wire.equals("relay")) {
                return RELAY;
            }
            throw new IllegalArgumentException("a credential's kind is 'host' or 'relay', not '" + wire + "'");
        }
    }

    /**
     * One issued credential as the engine keeps it.
     *
     * @param id        the credential's id
     * @param hostId    the host it may speak for
     * @param verifier  SHA-256 of the secret ({@link HostCredential#verifier})
     * @param engineKey the key the engine authenticates to the host with ({@link HostCredential#engineKey})
     * @param createdMs when it was issued
     * @param kind      what it may be used as
     */
    public record Entry(String id, String hostId, String verifier, String engineKey, long createdMs, Kind kind) {
        @Override
        public String toString() {
            return "Entry[id=" + id + ", hostId=" + hostId + ", kind=" + kind.wire() + "]";
        }
    }

    /** Where entries live across restarts (the engine's run store). */
    public interface Persistence {
        List<Entry> loadAll();

        void save(Entry e);

        void delete(String id);

        /** Keeps nothing (tests, engines without a store). */
        Persistence NONE = new Persistence() {
            @Override
            public List<Entry> loadAll() {
                return List.of();
            }

            @Override
            public void save(Entry e) {
            }

            @Override
            public void delete(String id) {
            }
        };
    }

    /** A host id already holds a credential: revoke it first (one key per host keeps engine → host unambiguous). */
    public static final class HostIdTakenException extends Exception {
        private static final long serialVersionUID = 1L;

        public HostIdTakenException(String message) {
            super(message);
        }
    }

    private final Map<String, Entry> byId = new ConcurrentHashMap<>();
    private final Persistence persistence;
    private final LongSupplier clock;

    public HostCredentials(Persistence persistence) {
        this(persistence, System::currentTimeMillis);
    }

    HostCredentials(Persistence persistence, LongSupplier clock) {
        this.persistence = persistence;
        this.clock = clock;
        persistence.loadAll().forEach(e -> byId.put(e.id(), e));
    }

    /**
     * Issues a credential for {@code hostId} ({@code null}: a fresh {@code host-…} id).
     *
     * @param engineUrl written into the credential's text so {@code mpflc host} finds the engine
     */
    public HostCredential issue(String hostId, String engineUrl) throws HostIdTakenException {
        return issue(hostId, engineUrl, Kind.HOST);
    }

    /** Issues a credential of {@code kind} for {@code hostId} (a relay's id for {@link Kind#RELAY}). */
    public synchronized HostCredential issue(String hostId, String engineUrl, Kind kind) throws HostIdTakenException {
        String id = hostId == null || hostId.isBlank() ? "host-" + DomainToken.generate().substring(0, 10) : hostId.strip();
        if (!id.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,127}")) {
            throw new IllegalArgumentException("a host id is 1..128 letters, digits, '.', '_' or '-', got '" + id + "'");
        }
        Optional<Entry> taken = forHost(id);
        if (taken.isPresent()) {
            throw new HostIdTakenException("host id '" + id + "' already has credential " + taken.get().id()
                    + ": revoke it first (mpflc host-token --engine " + engineUrl + " --revoke " + taken.get().id()
                    + "; over REST: DELETE /api/registry/credentials/" + taken.get().id() + "), or give this "
                    + (kind == Kind.RELAY ? "relay" : "host") + " another id with --host-id");
        }
        HostCredential c = HostCredential.generate(engineUrl, id);
        Entry e = new Entry(c.id(), c.hostId(), HostCredential.verifier(c.secret()), c.engineKey(), clock.getAsLong(), kind);
        persistence.save(e);
        byId.put(e.id(), e);
        return c;
    }

    /**
     * The host id a request's {@code Authorization} header speaks for, or empty when it carries no
     * valid host credential (absent, malformed, unknown id, wrong secret, revoked).
     */
    public Optional<String> authenticate(String authorization) {
        return credentialOf(authorization).map(Entry::hostId);
    }

    /** The credential a request's {@code Authorization} header carries, if valid (see {@link #authenticate}). */
    public Optional<Entry> credentialOf(String authorization) {
        String[] idSecret = HostCredential.parseAuthorization(authorization);
        if (idSecret == null) {
            return Optional.empty();
        }
        Entry e = byId.get(idSecret[0]);
        // compare even for an unknown id, so the answer's timing says nothing about which ids exist
        String expected = e == null ? "unknown-credential-verifier-000000000000000" : e.verifier();
        boolean ok = MessageDigest.isEqual(expected.getBytes(StandardCharsets.US_ASCII),
                HostCredential.verifier(idSecret[1]).getBytes(StandardCharsets.US_ASCII));
        return ok && e != null ? Optional.of(e) : Optional.empty();
    }

    /** Revokes a credential; returns what it was, empty if unknown. */
    public synchronized Optional<Entry> revoke(String id) {
        Entry e = byId.remove(id);
        if (e != null) {
            persistence.delete(id);
        }
        return Optional.ofNullable(e);
    }

    /** The credential with this id (not a secret: it names the credential), if it is still issued. */
    public Optional<Entry> byId(String id) {
        return id == null ? Optional.empty() : Optional.ofNullable(byId.get(id));
    }

    /** The credential of a host id, if it has one. */
    public Optional<Entry> forHost(String hostId) {
        return byId.values().stream().filter(e -> e.hostId().equals(hostId)).findFirst();
    }

    /**
     * The {@code Authorization} header value with which the engine calls {@code hostId} (deploy,
     * {@code run}, extensions), or {@code null} when that host has no credential (then it is a host
     * without an engine key: it accepts calls from its own machine only).
     */
    public String engineAuthorization(String hostId) {
        return forHost(hostId).map(e -> HostCredential.engineAuthorization(e.engineKey())).orElse(null);
    }

    /** All credentials, oldest first (no secrets in them). */
    public List<Entry> list() {
        // oldest first; issued within one millisecond (a script enrolling nodes), by host id: the same order every time
        return byId.values().stream().sorted(Comparator.comparingLong(Entry::createdMs)
                .thenComparing(Entry::hostId, Comparator.nullsFirst(Comparator.<String>naturalOrder()))
                .thenComparing(Entry::id)).toList();
    }
}
