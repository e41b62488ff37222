package org.mpfl.engine.store;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What the access layer keeps (tables {@code run_owners}, {@code workflow_owners}, {@code audit_log},
 * migration {@code V22}): the project and owner of every run and workflow, and one row per audited
 * request. Works on the {@link EngineDatabase}'s one connection under its lock.
 */
public final class AccessStore {
    private final EngineDatabase db;

    AccessStore(EngineDatabase db) {
        this.db = db;
    }

    /**
     * The project a run or workflow belongs to and who made it.
     *
     * @param project the project (a group of users)
     * @param owner   the user (or {@code admin-token}) that started or deployed it
     */
    public record Ownership(String project, String owner) {
    }

    /** Records who owns a run (once, when it starts; a resumed run keeps its owner). */
    public void ownRun(String runId, Ownership o) {
        db.upsert("cannot record the owner of run " + runId, "UPDATE run_owners SET project = ?, owner = ? WHERE run_id = ?",
                new Object[] {o.project(), o.owner(), runId}, "INSERT INTO run_owners (run_id, project, owner) VALUES (?, ?, ?)",
                new Object[] {runId, o.project(), o.owner()});
    }

    /** Who owns a run; empty for a run the access layer never saw (only admins see such a run). */
    public Optional<Ownership> runOwner(String runId) {
        return owner("SELECT project, owner FROM run_owners WHERE run_id = ?", runId);
    }

    /** Records who owns a workflow name (every version of it). */
    public void ownWorkflow(String name, Ownership o) {
        db.upsert("cannot record the owner of workflow " + name, "UPDATE workflow_owners SET project = ?, owner = ? WHERE name = ?",
                new Object[] {o.project(), o.owner(), name}, "INSERT INTO workflow_owners (name, project, owner) VALUES (?, ?, ?)",
                new Object[] {name, o.project(), o.owner()});
    }

    /** Who owns a workflow name; empty for one the access layer never saw. */
    public Optional<Ownership> workflowOwner(String name) {
        return owner("SELECT project, owner FROM workflow_owners WHERE name = ?", name);
    }

    private Optional<Ownership> owner(String sql, String key) {
        return db.locked("cannot read the owner of " + key, c -> {
            try (PreparedStatement p = c.prepareStatement(sql)) {
                p.setString(1, key);
                try (ResultSet r = p.executeQuery()) {
                    return r.next() ? Optional.of(new Ownership(r.getString(1), r.getString(2))) : Optional.<Ownership>empty();
                }
            }
        });
    }

    /**
     * One audited request.
     *
     * @param id     increasing
     * @param timeMs when it was answered
     * @param who    the caller's name (a user, {@code admin-token}, {@code host:ID})
     * @param source the remote address it came from
     * @param action method and path (no query, no body)
     * @param status the HTTP status it was answered with
     */
    public record AuditEntry(long id, long timeMs, String who, String source, String action, int status) {
    }

    /** Appends one audited request. */
    public void audit(long timeMs, String who, String source, String action, int status) {
        db.execute("cannot write the audit trail", "INSERT INTO audit_log (time_ms, who, source, action, status) VALUES (?, ?, ?, ?, ?)",
                timeMs, cut(who, 256), cut(source, 128), cut(action, 512), status);
    }

    /** Audited requests with id above {@code afterId}, oldest first, at most {@code limit}. */
    public List<AuditEntry> audit(long afterId, int limit) {
        return db.locked("cannot read the audit trail", c -> {
            List<AuditEntry> out = new ArrayList<>();
            try (PreparedStatement p = c.prepareStatement(
                    "SELECT id, time_ms, who, source, action, status FROM audit_log WHERE id > ? ORDER BY id LIMIT ?")) {
                p.setLong(1, afterId);
                p.setInt(2, limit);
                try (ResultSet r = p.executeQuery()) {
                    while (r.next()) {
                        out.add(new AuditEntry(r.getLong(1), r.getLong(2), r.getString(3), r.getString(4), r.getString(5), r.getInt(6)));
                    }
                }
            }
            return out;
        });
    }

    /** Deletes audit rows older than {@code beforeMs} (retention); returns how many. */
    public int forgetAuditBefore(long beforeMs) {
        return db.locked("cannot trim the audit trail", c -> {
            try (PreparedStatement p = c.prepareStatement("DELETE FROM audit_log WHERE time_ms < ?")) {
                p.setLong(1, beforeMs);
                return p.executeUpdate();
            }
        });
    }

    private static String cut(String s, int max) {
        return s == null ? "" : s.length() <= max ? s : s.substring(0, max);
    }
}
