package org.mpfl.engine.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.flywaydb.core.api.migration.BaseJavaMigration;
import org.flywaydb.core.api.migration.Context;
import org.mpfl.protocol.digest.Sha256;

/**
 * Schema version 2: stored workflows are kept per version ({@code workflow_versions}, key name +
 * version). The workflows of an older database (table {@code workflows}, one row per name) become
 * version 1 of each; their services were deployed under the plain service type names, so the version
 * maps none ({@code services} null). A Java migration rather than SQL because the source SHA-256 of
 * each copied workflow is computed here (H2 and PostgreSQL spell SHA-256 differently in SQL).
 */
// the name is Flyway's convention for Java migrations: V<version>__<description>
@SuppressWarnings("checkstyle:TypeName")
final class V2__Workflow_versions extends BaseJavaMigration {

    @Override
    public void migrate(Context context) throws SQLException {
        Connection c = context.getConnection();
        String largeText = RunStore.placeholders(c.getMetaData().getDatabaseProductName()).get("large_text");
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE workflow_versions (name VARCHAR(256) NOT NULL, version INTEGER NOT NULL, "
                    + "deployed_ms BIGINT NOT NULL, source_sha256 VARCHAR(64) NOT NULL, content_sha256 VARCHAR(64) NOT NULL, "
                    + "document " + largeText + ", plan " + largeText + ", services " + largeText + ", PRIMARY KEY (name, version))");
        }
        try (Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT name, updated_ms, document, plan FROM workflows");
             PreparedStatement insert = c.prepareStatement("INSERT INTO workflow_versions (name, version, deployed_ms, "
                     + "source_sha256, content_sha256, document, plan, services) VALUES (?, 1, ?, ?, ?, ?, ?, NULL)")) {
            while (r.next()) {
                String document = r.getString(3);
                String plan = r.getString(4);
                String sha = Sha256.hex(document != null ? document : plan == null ? "" : plan);
                insert.setString(1, r.getString(1));
                insert.setLong(2, r.getLong(2));
                insert.setString(3, sha);
                insert.setString(4, sha);
                insert.setString(5, document);
                insert.setString(6, plan);
                insert.executeUpdate();
            }
        }
        try (Statement s = c.createStatement()) {
            s.execute("DROP TABLE workflows");
        }
    }
}
