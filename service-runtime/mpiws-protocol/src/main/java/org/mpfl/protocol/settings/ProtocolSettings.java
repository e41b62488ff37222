package org.mpfl.protocol.settings;

import org.mpfl.ir.settings.Setting;

/**
 * Every system property and environment variable the protocol reads (the host launcher, TLS, host
 * credentials; see docs/cli.md, "Settings"), read only through these declarations.
 */
public final class ProtocolSettings {
    private ProtocolSettings() {
    }

    public static final Setting<Long> HOST_STOP_GRACE_MS = Setting.longProperty("mpfl.host.stopGraceMs", 5_000L,
            "how long a launcher waits for a host process it asked to stop before it kills it");
    public static final Setting<String> HOST_CDS_ARCHIVE = Setting.textProperty("mpfl.host.cdsArchive", null,
            "set by bin/mpflc when built", "class-data-sharing archive the launched host JVMs map their classes from");
    /** Its name is {@code HostCredential.ENV}. */
    public static final Setting<String> HOST_CREDENTIAL = Setting.environment("MPFL_HOST_CREDENTIAL", "unset",
            "a service host's credential (join-file text), instead of --credential-file; never on the command line");
    /** Its name is {@code TlsSettings.PASSWORD_ENV}. */
    public static final Setting<String> TLS_PASSWORD = Setting.environment("MPFL_TLS_PASSWORD", "unset",
            "the password of --tls-keystore when no --tls-keystore-password-file is given");
}
