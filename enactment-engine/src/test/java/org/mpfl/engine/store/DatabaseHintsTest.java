package org.mpfl.engine.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.SQLException;
import org.flywaydb.core.api.FlywayException;
import org.junit.jupiter.api.Test;

/**
 * What mpflc up --jdbc says when the database is not reached or cannot be migrated: the driver's and Flyway's
 * words with what to do (the Tomcat/PostgreSQL walk-through met each of these as a bare driver or Flyway message).
 */
class DatabaseHintsTest {
    @Test
    void aUrlThatIsNotJdbcSaysWhatItTakes() {
        SQLException e = assertThrows(SQLException.class, () -> EngineDatabase.open("postgresql://db:5432/mpfl", "mpfl", "pw"));
        assertTrue(e.getMessage().contains("No suitable driver") && e.getMessage().contains(
                "(--jdbc takes a JDBC URL: jdbc:postgresql://HOST:PORT/DATABASE, or jdbc:h2:…; got 'postgresql://db:5432/mpfl')"),
                e.getMessage());
    }

    @Test
    void aRefusedLoginSaysWhichOptionIsMissing() {
        SQLException refused = new SQLException("FATAL: password authentication failed for user \"sa\"", "28P01");
        assertEquals(" (the role is H2's default 'sa': give the database's role with --jdbc-user ROLE)",
                EngineDatabase.connectionHint(refused, "jdbc:postgresql://db/mpfl", "sa", ""));
        assertEquals(" (no password was given: --jdbc-password-file F, or $MPFL_JDBC_PASSWORD)",
                EngineDatabase.connectionHint(refused, "jdbc:postgresql://db/mpfl", "mpfl", ""));
        assertEquals("", EngineDatabase.connectionHint(refused, "jdbc:postgresql://db/mpfl", "mpfl", "wrong"));
    }

    @Test
    void aSchemaFlywayCannotTakeSaysWhatToGive() {
        // Flyway 10's words for a database that holds tables of another application
        assertTrue(EngineDatabase.migrationHint(new FlywayException("Found non-empty schema(s) \"public\" but no schema history"
                + " table. Use baseline() or set baselineOnMigrate to true to initialize the schema history table."), "mpfl")
                .contains("give the engine a database of its own"));
        assertTrue(EngineDatabase.migrationHint(new FlywayException("ERROR: permission denied for schema public"), "mpfl")
                .contains("GRANT CREATE ON SCHEMA public TO mpfl"));
        assertEquals("", EngineDatabase.migrationHint(new FlywayException("something else"), "mpfl"));
    }
}
