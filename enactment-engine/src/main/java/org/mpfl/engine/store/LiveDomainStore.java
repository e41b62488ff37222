package org.mpfl.engine.store;

import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.mpfl.engine.json.Json;

/**
 * The domains of runs going on (table {@code live_domains}): what is needed to abort a domain on every
 * service, or for a restarted engine to re-attach to its run. Holds domain IDs and tokens, secrets that
 * only ever live here and in the engine's memory. Works on the {@link EngineDatabase}'s one connection
 * under its lock.
 */
public final class LiveDomainStore {
    private final EngineDatabase db;

    LiveDomainStore(EngineDatabase db) {
        this.db = db;
    }

    /** A domain that was live when recorded: what is needed to abort it on every service. */
    public record LiveDomain(String runId, String domainId, String token, List<String> serviceUrls) {
    }

    /** Records (or replaces) the live domain of a run. */
    public void save(LiveDomain d) {
        String urls = Json.write(d.serviceUrls());
        db.upsert("cannot record the domain of run " + d.runId(),
                "UPDATE live_domains SET domain_id = ?, token = ?, service_urls = ? WHERE run_id = ?",
                new Object[] {d.domainId(), d.token(), urls, d.runId()},
                "INSERT INTO live_domains (run_id, domain_id, token, service_urls) VALUES (?, ?, ?, ?)",
                new Object[] {d.runId(), d.domainId(), d.token(), urls});
    }

    /** Forgets the live domain of a run (it ended, or its domain was aborted). */
    public void delete(String runId) {
        db.execute("cannot forget the domain of run " + runId, "DELETE FROM live_domains WHERE run_id = ?", runId);
    }

    /** Domains recorded as live (after a restart: those the previous engine left running). */
    public List<LiveDomain> all() {
        return db.locked("cannot read live domains", c -> {
            List<LiveDomain> out = new ArrayList<>();
            try (Statement s = c.createStatement();
                 ResultSet r = s.executeQuery("SELECT run_id, domain_id, token, service_urls FROM live_domains")) {
                while (r.next()) {
                    List<String> urls = List.of(Json.MAPPER.readValue(r.getString(4), String[].class));
                    out.add(new LiveDomain(r.getString(1), r.getString(2), r.getString(3), urls));
                }
            }
            return out;
        });
    }
}
