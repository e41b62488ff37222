package org.mpfl.engine.settings;

import org.mpfl.ir.settings.Setting;

/**
 * Every environment variable and system property the engine and its commands read (see docs/cli.md, "Settings"; the
 * project directory {@code mpfl.home} is the command frame's, {@code CliSettings}), read only through
 * these declarations. Secrets come from here or from files, never from the command line, which every
 * user of the machine sees.
 */
public final class EngineSettings {
    private EngineSettings() {
    }

    public static final Setting<String> ENGINE = Setting.environment("MPFL_ENGINE", "the URL file in --data",
            "the engine the client commands (status, cancel, deploy, …) talk to when --engine is not given");
    public static final Setting<String> ENGINE_TOKEN = Setting.environment("MPFL_ENGINE_TOKEN", "the token file in --data",
            "the engine's admin token, or a user's access token, for the client commands when --token-file is not given");
    public static final Setting<String> JDBC_PASSWORD = Setting.environment("MPFL_JDBC_PASSWORD", "empty",
            "the password of mpflc up --jdbc when no --jdbc-password-file is given");
    public static final Setting<String> HOST_JAVA_OPTS = Setting.environment("MPFL_HOST_JAVA_OPTS", "unset",
            "extra JVM options (space-separated) of the local service hosts of mpflc up and run --local, e.g. -Dmpfl.… settings");
    public static final Setting<Long> EMBEDDED_HOST_CLOSE_WAIT_MS = Setting.longProperty("mpfl.host.exitCloseWaitMs", 500L,
            "how long run --local's exit waits for the service host in its JVM to close (the same property bounds a host process's exit)");
    public static final Setting<Integer> LOCAL_MAX_RANKS = Setting.intProperty("mpfl.local.maxRanks", 1024,
            "most ranks run --local runs as threads of its own JVM (one thread each, on this machine's cores); a run with"
                    + " more is refused before any starts");
    public static final Setting<Integer> LOCAL_MAX_HOSTS = Setting.intProperty("mpfl.local.maxHosts", 64,
            "most service host processes mpflc up --hosts N and run --local --hosts N start on this machine (each a JVM);"
                    + " more is refused before any starts");

    // what a connection that has not authenticated may cost the engine's port (docs/security.md, "Slow and flooding clients")
    public static final Setting<Long> GUARD_PROOF_DEADLINE_MS = Setting.longProperty("mpfl.engine.proofDeadlineMs", 10_000L,
            "a connection to the engine from an address that has not authenticated must finish its TLS handshake, and each"
                    + " request its head and answer, within this; it may idle that long between requests");
    public static final Setting<Integer> GUARD_PER_SOURCE = Setting.intProperty("mpfl.engine.perSource", 16,
            "most connections one unauthenticated source address may hold open at the engine; more are closed at once");
    public static final Setting<Integer> GUARD_STRANGERS = Setting.intProperty("mpfl.engine.strangers", 256,
            "most connections from unauthenticated addresses the engine holds at once (hosts, users and loopback are not counted)");
}
