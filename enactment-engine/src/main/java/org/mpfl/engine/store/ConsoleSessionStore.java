package org.mpfl.engine.store;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Optional;

/**
 * The console's login sessions (table {@code console_sessions}): what {@code ConsoleSessions} keeps so
 * that sessions survive a restart and are shared by every engine on the store. Rows are keyed by a
 * hash of the session id and hold the tokens encrypted; this class never sees either in the clear.
 * Works on the {@link EngineDatabase}'s one connection under its lock.
 */
public final class ConsoleSessionStore {
    private final EngineDatabase db;

    ConsoleSessionStore(EngineDatabase db) {
        this.db = db;
    }

    /**
     * One session as stored.
     *
     * @param idHash         the hash of the session id (hex)
     * @param createdMs      when the login completed
     * @param endsMs         when the session ends whatever happens
     * @param tokenExpiresMs when its access token expires (it is refreshed before)
     * @param tokens         the encrypted tokens (opaque here)
     */
    public record StoredSession(String idHash, long createdMs, long endsMs, long tokenExpiresMs, String tokens) {
    }

    /** Stores (or replaces, after a refresh) a session. */
    public void save(StoredSession s) {
        db.upsert("cannot store a console session",
                "UPDATE console_sessions SET created_ms = ?, ends_ms = ?, token_expires_ms = ?, tokens = ? WHERE id_hash = ?",
                new Object[] {s.createdMs(), s.endsMs(), s.tokenExpiresMs(), s.tokens(), s.idHash()},
                "INSERT INTO console_sessions (id_hash, created_ms, ends_ms, token_expires_ms, tokens) VALUES (?, ?, ?, ?, ?)",
                new Object[] {s.idHash(), s.createdMs(), s.endsMs(), s.tokenExpiresMs(), s.tokens()});
    }

    /** The session with this id hash, if stored. */
    public Optional<StoredSession> find(String idHash) {
        return db.locked("cannot read a console session", c -> {
            try (PreparedStatement p = c.prepareStatement(
                    "SELECT created_ms, ends_ms, token_expires_ms, tokens FROM console_sessions WHERE id_hash = ?")) {
                p.setString(1, idHash);
                try (ResultSet r = p.executeQuery()) {
                    return r.next() ? Optional.of(new StoredSession(idHash, r.getLong(1), r.getLong(2), r.getLong(3), r.getString(4)))
                            : Optional.<StoredSession>empty();
                }
            }
        });
    }

    /** Forgets a session (logout, expiry, a refresh that failed). */
    public void delete(String idHash) {
        db.execute("cannot delete a console session", "DELETE FROM console_sessions WHERE id_hash = ?", idHash);
    }

    /**
     * Makes room for one more session: deletes those ended by {@code nowMs}, then, while {@code max}
     * or more remain, the oldest.
     */
    public void makeRoom(long nowMs, int max) {
        db.locked("cannot trim console sessions", c -> {
            try (PreparedStatement ended = c.prepareStatement("DELETE FROM console_sessions WHERE ends_ms <= ?")) {
                ended.setLong(1, nowMs);
                ended.executeUpdate();
            }
            long count;
            try (PreparedStatement n = c.prepareStatement("SELECT COUNT(*) FROM console_sessions");
                 ResultSet r = n.executeQuery()) {
                r.next();
                count = r.getLong(1);
            }
            if (count >= max) {
                try (PreparedStatement oldest = c.prepareStatement("DELETE FROM console_sessions WHERE id_hash IN"
                        + " (SELECT id_hash FROM console_sessions ORDER BY created_ms LIMIT ?)")) {
                    oldest.setLong(1, count - max + 1);
                    oldest.executeUpdate();
                }
            }
            return null;
        });
    }
}
