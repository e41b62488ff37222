package org.mpfl.protocol.relay;

import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Takes a revocation to the relay: every {@link #EVERY} the relay asks the engine which of its registered hosts still
 * hold the credential they proved ({@code POST /api/registry/relays/check}) and drops the others
 * ({@link RelayServer#drop}: control connection closed, waiting dials refused, the directory without them). A host
 * whose credential was revoked — or replaced by a new one for the same host id — is gone from the relay within
 * {@link #EVERY} plus the engine's answer, and cannot register again (its proof no longer verifies).
 *
 * <p>The relay asks; the engine pushes nothing. Asking needs no state at the engine and mends itself: a relay that
 * was away, or an engine that restarted, is right again at the next answer, where a pushed revocation missed during a
 * broken watch would be lost for good.
 *
 * <p>When the engine gives no answer (unreachable, restarting, not knowing this relay yet: any failure), the relay
 * keeps every registration and says so once. Dropping them would cut the valid hosts' runs for a transient outage,
 * and keeping them opens nothing: every host's {@code register}, {@code dial} and {@code accept} is verified with the
 * engine anyway, so while it does not answer a revoked host can make no new splice. The next answer drops what it must.
 */
final class CredentialSweep implements Closeable {
    /**
     * How often the relay asks: one small request per relay answered from the engine's memory, so a short period
     * costs nothing, and the drop follows an admin's revocation within a few seconds (docs/security.md promises 5).
     */
    static final Duration EVERY = Duration.ofSeconds(2);

    /** The engine's answer about the registrations a relay holds. */
    @FunctionalInterface
    interface Check {
        /**
         * Of {@code credentialByHost} (host id → the id of the credential its registration proved), the host ids
         * whose credential is still valid; an exception when the engine gave no answer.
         */
        Set<String> stillValid(Map<String, String> credentialByHost) throws IOException;
    }

    private final RelayServer server;
    private final Check check;
    private final Duration every;
    private final Consumer<String> say;
    private final Thread thread;
    private volatile boolean closed;

    private CredentialSweep(RelayServer server, Check check, Duration every, Consumer<String> say) {
        this.server = server;
        this.check = check;
        this.every = every;
        this.say = say;
        this.thread = new Thread(this::run, "mpfl-relay-credentials");
        thread.setDaemon(true);
    }

    /** Starts sweeping {@code server}'s registrations every {@code every}; {@code say} hears each drop and outage. */
    static CredentialSweep start(RelayServer server, Check check, Duration every, Consumer<String> say) {
        CredentialSweep sweep = new CredentialSweep(server, check, every, say);
        sweep.thread.start();
        return sweep;
    }

    private void run() {
        boolean unanswered = false;
        while (!closed) {
            try {
                Thread.sleep(every.toMillis());
            } catch (InterruptedException e) {
                return;
            }
            Map<String, String> asked = server.credentialsByHost();
            if (asked.isEmpty()) {
                continue;
            }
            Set<String> valid;
            try {
                valid = check.stillValid(asked);
            } catch (IOException | RuntimeException e) {
                if (!unanswered && !closed) {
                    say.accept("could not ask the engine whether its hosts' credentials are still valid (" + e.getMessage()
                            + "); keeping the " + asked.size() + " registered hosts until it answers (each of their dials and"
                            + " accepts is still checked with the engine)");
                }
                unanswered = true;
                continue;
            }
            if (unanswered) {
                say.accept("the engine answers the check of the hosts' credentials again");
                unanswered = false;
            }
            asked.forEach((hostId, credential) -> {
                if (!valid.contains(hostId) && server.drop(hostId, credential)) {
                    say.accept("dropped host " + hostId + ": the engine no longer holds the credential it registered with"
                            + " (revoked)");
                }
            });
        }
    }

    @Override
    public void close() {
        closed = true;
        thread.interrupt();
    }
}
