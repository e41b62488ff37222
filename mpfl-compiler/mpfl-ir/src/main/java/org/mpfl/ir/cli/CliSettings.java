package org.mpfl.ir.cli;

import org.mpfl.ir.settings.Setting;

/** The settings of the {@code mpflc} command frame, shared by every module's commands. */
public final class CliSettings {
    private CliSettings() {
    }

    /** Where the project is; {@code bin/mpflc} sets it. */
    public static final Setting<String> HOME = Setting.textProperty("mpfl.home", null, "set by bin/mpflc",
            "the project directory (bin/mpflc, samples, the built jars); commands that start processes or find samples use it");

    public static final Setting<String> DEBUG = Setting.environment("MPFL_DEBUG", "unset",
            "set: a command that fails prints the exception's stack trace after its one-line message");
}
