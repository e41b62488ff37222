package org.mpfl.engine.access;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The console's logins under way (between the redirect to the issuer and its answer), by state, in this engine's
 * memory. Anyone may start one without a credential, so it is bounded — at most {@code perSource} per source address
 * and {@code max} in all — and a new login is never refused for the bound: it displaces the oldest pending login of
 * its own address, or, when all are taken, the oldest of all. A refusal would let whoever starts logins and never
 * finishes them lock every user out of the console; displacing, one address can only displace its own, and many
 * addresses must keep starting logins faster than a user completes one.
 *
 * @param <T> what a login keeps until its callback
 */
final class PendingLogins<T> {
    private record Entry<T>(T login, String source, long createdMs) {
    }

    private final int max;
    private final int perSource;
    private final long lifetimeMs;
    /** Oldest first; guarded by this. */
    private final Map<String, Entry<T>> byState = new LinkedHashMap<>();

    PendingLogins(int max, int perSource, long lifetimeMs) {
        this.max = max;
        this.perSource = perSource;
        this.lifetimeMs = lifetimeMs;
    }

    /** Keeps a new login under {@code state}, displacing an older one when the bounds are reached. */
    synchronized void add(String state, T login, String source, long nowMs) {
        byState.values().removeIf(e -> nowMs - e.createdMs() > lifetimeMs);
        List<String> ofSource = byState.entrySet().stream().filter(e -> e.getValue().source().equals(source))
                .map(Map.Entry::getKey).toList();
        if (ofSource.size() >= perSource) {
            byState.remove(ofSource.get(0));
        } else if (byState.size() >= max) {
            byState.remove(byState.keySet().iterator().next());
        }
        byState.put(state, new Entry<>(login, source, nowMs));
    }

    /** Takes the login of {@code state} (once): {@code null} when there is none, or it is older than the lifetime. */
    synchronized T take(String state, long nowMs) {
        Entry<T> e = state == null ? null : byState.remove(state);
        return e == null || nowMs - e.createdMs() > lifetimeMs ? null : e.login();
    }

    /** How many logins are pending. */
    synchronized int size() {
        return byState.size();
    }
}
