package org.mpfl.engine.store;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Stored workflows, one row per version (table {@code workflow_versions}, made by migration
 * {@link V2__Workflow_versions}). A version is written once and never replaced. Works on the
 * {@link EngineDatabase}'s one connection under its lock.
 */
public final class WorkflowVersionStore {
    private static final String VERSION_COLUMNS =
            "name, version, deployed_ms, source_sha256, content_sha256, document, plan, services";

    private final EngineDatabase db;

    WorkflowVersionStore(EngineDatabase db) {
        this.db = db;
    }

    /**
     * One version of a stored workflow.
     *
     * @param name          the workflow's name
     * @param version       1, 2, 3 … in the order deployed
     * @param deployedMs    when this version was deployed
     * @param sourceSha256  SHA-256 of its MPFL source (the document, or the one the plan was compiled from)
     * @param contentSha256 SHA-256 over what was deployed (source or plan, and the archives): equal means unchanged
     * @param document      its MPFL document, or {@code null}
     * @param plan          its deployment plan JSON, or {@code null}
     * @param services      JSON object: service type → name deployed on the hosts; {@code null}: the plain names
     */
    public record StoredWorkflow(String name, int version, long deployedMs, String sourceSha256, String contentSha256,
                                 String document, String plan, String services) {
        /** When the workflow last changed (this version's deployment). */
        public long updatedMs() {
            return deployedMs;
        }
    }

    /** Adds a version; fails if that version of the workflow exists. */
    public void save(StoredWorkflow w) {
        db.locked("cannot save version " + w.version() + " of workflow " + w.name(), c -> {
            try (PreparedStatement p = c.prepareStatement(
                    "INSERT INTO workflow_versions (" + VERSION_COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
                p.setString(1, w.name());
                p.setInt(2, w.version());
                p.setLong(3, w.deployedMs());
                p.setString(4, w.sourceSha256());
                p.setString(5, w.contentSha256());
                p.setString(6, w.document());
                p.setString(7, w.plan());
                p.setString(8, w.services());
                p.executeUpdate();
            }
            return null;
        });
    }

    private static StoredWorkflow version(ResultSet r) throws SQLException {
        return new StoredWorkflow(r.getString(1), r.getInt(2), r.getLong(3), r.getString(4), r.getString(5), r.getString(6),
                r.getString(7), r.getString(8));
    }

    /** A given version of a workflow. */
    public Optional<StoredWorkflow> version(String name, int version) {
        return db.locked("cannot read version " + version + " of workflow " + name, c -> {
            try (PreparedStatement p = c.prepareStatement(
                    "SELECT " + VERSION_COLUMNS + " FROM workflow_versions WHERE name = ? AND version = ?")) {
                p.setString(1, name);
                p.setInt(2, version);
                try (ResultSet r = p.executeQuery()) {
                    return r.next() ? Optional.of(version(r)) : Optional.<StoredWorkflow>empty();
                }
            }
        });
    }

    /** The latest version of a workflow. */
    public Optional<StoredWorkflow> latest(String name) {
        return db.locked("cannot read workflow " + name, c -> {
            try (PreparedStatement p = c.prepareStatement("SELECT " + VERSION_COLUMNS
                    + " FROM workflow_versions WHERE name = ? ORDER BY version DESC LIMIT 1")) {
                p.setString(1, name);
                try (ResultSet r = p.executeQuery()) {
                    return r.next() ? Optional.of(version(r)) : Optional.<StoredWorkflow>empty();
                }
            }
        });
    }

    /** Every version of a workflow, oldest first, without document and plan (a listing). */
    public List<StoredWorkflow> versions(String name) {
        return db.locked("cannot list the versions of workflow " + name, c -> {
            List<StoredWorkflow> out = new ArrayList<>();
            try (PreparedStatement p = c.prepareStatement("SELECT name, version, deployed_ms, source_sha256, "
                    + "content_sha256, NULL, NULL, services FROM workflow_versions WHERE name = ? ORDER BY version")) {
                p.setString(1, name);
                try (ResultSet r = p.executeQuery()) {
                    while (r.next()) {
                        out.add(version(r));
                    }
                }
            }
            return out;
        });
    }

    /** The latest version of every workflow, by name. */
    public List<StoredWorkflow> all() {
        return db.locked("cannot list workflows", c -> {
            List<StoredWorkflow> out = new ArrayList<>();
            try (Statement s = c.createStatement();
                 ResultSet r = s.executeQuery("SELECT v.name, v.version, v.deployed_ms, v.source_sha256, v.content_sha256, "
                         + "v.document, v.plan, v.services FROM workflow_versions v WHERE v.version = "
                         + "(SELECT MAX(l.version) FROM workflow_versions l WHERE l.name = v.name) ORDER BY v.name")) {
                while (r.next()) {
                    out.add(version(r));
                }
            }
            return out;
        });
    }
}
