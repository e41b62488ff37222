package org.mpfl.engine.store;

import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The jobs capacity providers run for this engine (table {@code capacity_jobs}), so that a restarted
 * engine adopts them again: neither submits a second job for the same need nor leaves one running
 * that nobody releases. Works on the {@link EngineDatabase}'s one connection under its lock.
 */
public final class CapacityJobStore {
    private final EngineDatabase db;

    CapacityJobStore(EngineDatabase db) {
        this.db = db;
    }

    /**
     * One job as stored.
     *
     * @param jobName     the name it was (or is about to be) submitted under, unique to it
     * @param provider    which provider ran it ("slurm")
     * @param hostId      the service host it starts
     * @param jobId       the scheduler's id for it, {@code null} while it is being submitted
     * @param submittedMs when it was submitted
     */
    public record StoredJob(String jobName, String provider, String hostId, String jobId, long submittedMs) {
    }

    /** Stores (or replaces) a job. */
    public void save(StoredJob j) {
        db.upsert("cannot store capacity job " + j.jobName(),
                "UPDATE capacity_jobs SET provider = ?, host_id = ?, job_id = ?, submitted_ms = ? WHERE job_name = ?",
                new Object[] {j.provider(), j.hostId(), j.jobId(), j.submittedMs(), j.jobName()},
                "INSERT INTO capacity_jobs (job_name, provider, host_id, job_id, submitted_ms) VALUES (?, ?, ?, ?, ?)",
                new Object[] {j.jobName(), j.provider(), j.hostId(), j.jobId(), j.submittedMs()});
    }

    /** Forgets a job (it ended, or was never submitted). */
    public void delete(String jobName) {
        db.execute("cannot delete capacity job " + jobName, "DELETE FROM capacity_jobs WHERE job_name = ?", jobName);
    }

    /** Every stored job, oldest first. */
    public List<StoredJob> all() {
        return db.locked("cannot read capacity jobs", c -> {
            List<StoredJob> out = new ArrayList<>();
            try (Statement s = c.createStatement();
                 ResultSet r = s.executeQuery("SELECT job_name, provider, host_id, job_id, submitted_ms FROM capacity_jobs"
                         + " ORDER BY submitted_ms, job_name")) {
                while (r.next()) {
                    out.add(new StoredJob(r.getString(1), r.getString(2), r.getString(3), r.getString(4), r.getLong(5)));
                }
            }
            return out;
        });
    }
}
