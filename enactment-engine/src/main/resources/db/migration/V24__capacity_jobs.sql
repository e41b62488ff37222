-- Jobs a capacity provider (Slurm) runs for this engine, each starting one service host: a restarted
-- engine adopts them again instead of submitting new ones (CapacityJobStore). A row is written before
-- the job is submitted (job_id NULL) and given its job id after; a row still without one after a crash
-- is looked up by its job name at the scheduler.
CREATE TABLE capacity_jobs (
    job_name VARCHAR(128) PRIMARY KEY,
    provider VARCHAR(32) NOT NULL,
    host_id VARCHAR(128) NOT NULL,
    job_id VARCHAR(64),
    submitted_ms BIGINT NOT NULL
);
