-- The console's login sessions (issue 22), so that a restarted engine, or another replica on the same
-- store, keeps its users logged in (ConsoleSessions). A row is found by the SHA-256 of the session id,
-- never the id (the cookie's value) itself; the tokens are AES-GCM encrypted under a key derived from
-- that id, so the store alone yields neither a usable cookie nor a token. Logout and expiry delete the row.
CREATE TABLE console_sessions (
    id_hash VARCHAR(64) PRIMARY KEY,
    created_ms BIGINT NOT NULL,
    ends_ms BIGINT NOT NULL,
    token_expires_ms BIGINT NOT NULL,
    tokens VARCHAR(65536) NOT NULL
);
CREATE INDEX console_sessions_by_created ON console_sessions (created_ms);
