-- The run queue: runs accepted but waiting for free capacity before their first start (state QUEUED),
-- with what a restarted engine needs to queue them again in the same order (RunStore#queued).
-- launch: JSON {"slices": [{"name", "service", "ranks"}], "services": {process: deployed name}, "restartsAllowed"}
CREATE TABLE run_queue (
    run_id VARCHAR(64) PRIMARY KEY,
    priority INT NOT NULL,
    created_ms BIGINT NOT NULL,
    since_ms BIGINT NOT NULL,
    oversubscribe BOOLEAN NOT NULL,
    queue_timeout_ms BIGINT NOT NULL, -- -1: the engine's default; 0: no bound
    launch ${large_text} NOT NULL
);
