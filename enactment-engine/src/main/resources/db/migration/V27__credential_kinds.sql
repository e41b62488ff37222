-- What a credential may be used as: 'host' (mpflc host: announce, heartbeat) or 'relay' (mpflc relay: announce
-- a relay, have the engine check hosts' proofs). Until now any credential could do both, so a host's credential
-- could run a relay and ask the engine to check proofs, and a relay's could announce a host. Credentials issued
-- before this are hosts' (a relay's must be issued again with mpflc host-token --relay).
ALTER TABLE host_credentials ADD COLUMN kind VARCHAR(8) DEFAULT 'host' NOT NULL;
