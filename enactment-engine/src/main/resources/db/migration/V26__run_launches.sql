-- What placing a run again needs (a restart after an infrastructure fault, a resume by a user), kept with
-- the run so that an engine started later can still restart a run it re-attaches to, or resume a FAILED or
-- CANCELLED run an earlier engine ended (RunStore#launch). Deleted when the run succeeds (never resumed).
-- launch: JSON {"slices": [{"name", "service", "ranks"}], "services": {process: deployed name}, "restartsAllowed",
-- "sites", "priority", "oversubscribe", "queueTimeoutMs"}
CREATE TABLE run_launches (
    run_id VARCHAR(64) PRIMARY KEY,
    launch ${large_text} NOT NULL
);
