package org.mpfl.engine.store;

import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Host credentials (table {@code host_credentials}): per credential its verifier and the engine's key
 * for that host, never a secret. Works on the {@link EngineDatabase}'s one connection under its lock.
 */
public final class HostCredentialStore {
    private final EngineDatabase db;

    HostCredentialStore(EngineDatabase db) {
        this.db = db;
    }

    /**
     * One host credential as stored: no secret, only its verifier and the engine's key for that host.
     *
     * @param id        credential id
     * @param hostId    the host it speaks for
     * @param verifier  SHA-256 of the secret, base64url
     * @param engineKey the key the engine authenticates to the host with
     * @param createdMs when it was issued
     * @param kind      {@code host} or {@code relay}: what the credential may be used as
     */
    public record StoredCredential(String id, String hostId, String verifier, String engineKey, long createdMs, String kind) {
        /** A host's credential. */
        public StoredCredential(String id, String hostId, String verifier, String engineKey, long createdMs) {
            this(id, hostId, verifier, engineKey, createdMs, "host");
        }

        @Override
        public String toString() {
            return "StoredCredential[id=" + id + ", hostId=" + hostId + "]";
        }
    }

    /** Stores (or replaces) a credential. */
    public void save(StoredCredential c) {
        db.upsert("cannot store host credential " + c.id(),
                "UPDATE host_credentials SET host_id = ?, verifier = ?, engine_key = ?, created_ms = ?, kind = ? WHERE id = ?",
                new Object[] {c.hostId(), c.verifier(), c.engineKey(), c.createdMs(), c.kind(), c.id()},
                "INSERT INTO host_credentials (id, host_id, verifier, engine_key, created_ms, kind) VALUES (?, ?, ?, ?, ?, ?)",
                new Object[] {c.id(), c.hostId(), c.verifier(), c.engineKey(), c.createdMs(), c.kind()});
    }

    /** Deletes a credential (revoked). */
    public void delete(String id) {
        db.execute("cannot delete host credential " + id, "DELETE FROM host_credentials WHERE id = ?", id);
    }

    /** Every stored host credential. */
    public List<StoredCredential> all() {
        return db.locked("cannot read host credentials", c -> {
            List<StoredCredential> out = new ArrayList<>();
            try (Statement s = c.createStatement();
                 ResultSet r = s.executeQuery("SELECT id, host_id, verifier, engine_key, created_ms, kind FROM host_credentials")) {
                while (r.next()) {
                    out.add(new StoredCredential(r.getString(1), r.getString(2), r.getString(3), r.getString(4), r.getLong(5),
                            r.getString(6)));
                }
            }
            return out;
        });
    }
}
