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
    /**
     * The class path of the host JVMs a launcher starts (default: this JVM's {@code java.class.path}). The build's
     * full tier sets a class path of jars only ({@code org.mpfl.testing.ChildJvm}): a class-data sharing archive
     * covers jars, not directories such as {@code target/test-classes}.
     */
    public static final Setting<String> HOST_CLASS_PATH = Setting.textProperty("mpfl.host.classPath", null,
            "java.class.path", "the class path of the host JVMs a launcher starts (the tests: jars only, for their CDS archive)");
    /**
     * JVM options for every host process a launcher starts, comma-separated (a value may not contain a comma). The
     * build's test JVMs set {@code -XX:TieredStopAtLevel=1,-XX:+UseSerialGC}: a test's hosts live seconds, and on two
     * cores the C2 compiler and G1's threads of a dozen short-lived JVMs cost about a third of the suite's CPU.
     */
    public static final Setting<String> HOST_JVM_OPTIONS = Setting.textProperty("mpfl.host.jvmOptions", "", "none",
            "extra JVM options of the host processes a launcher starts, comma-separated (the tests: C1 only, serial GC)");
    /**
     * The interpreter of a host's Python kernel workers: set by {@code mpflc host --python}, and by
     * {@code mpflc up}/{@code run --local --python}, whose launcher passes it on to the hosts it starts.
     */
    public static final Setting<String> KERNEL_PYTHON = Setting.textProperty("mpfl.kernel.python", "python3", "python3",
            "the interpreter of <compute python> workers (mpflc host --python PATH): a virtualenv's or conda's python works");
    /** Its name is {@code HostCredential.ENV}. */
    public static final Setting<String> HOST_CREDENTIAL = Setting.environment("MPFL_HOST_CREDENTIAL", "unset",
            "a service host's credential (join-file text), instead of --credential-file; never on the command line");
    /** Its name is {@code TlsSettings.PASSWORD_ENV}. */
    public static final Setting<String> TLS_PASSWORD = Setting.environment("MPFL_TLS_PASSWORD", "unset",
            "the password of --tls-keystore when no --tls-keystore-password-file is given");

    /**
     * The value of one of these environment variables, or {@code null}: the environment for code that
     * takes it as a function (so that its tests give their own).
     *
     * @throws IllegalArgumentException for a variable not declared here
     */
    public static String environment(String name) {
        for (Setting<String> s : java.util.List.of(HOST_CREDENTIAL, TLS_PASSWORD)) {
            if (s.name().equals(name)) {
                return s.raw();
            }
        }
        throw new IllegalArgumentException(name + " is not an environment variable of ProtocolSettings");
    }
}
