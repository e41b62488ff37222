package org.mpfl.compiler.settings;

import org.mpfl.ir.settings.Setting;

/**
 * Every system property and environment variable the compiler reads (see docs/cli.md, "Settings").
 * The compiler reads them only through these declarations.
 */
public final class CompilerSettings {
    private CompilerSettings() {
    }

    public static final Setting<Long> CHECK_MAX_OPERATIONS = Setting.longProperty("mpfl.check.maxOperations", 500_000L,
            "activities and loop tests the communication check executes over all ranks before it stops with a warning");
    public static final Setting<Integer> CHECK_MAX_RANKS = Setting.intProperty("mpfl.check.maxRanks", 1024,
            "largest world size the communication check analyses");
    public static final Setting<Integer> CHECK_MAX_VALUE_LENGTH = Setting.intProperty("mpfl.check.maxValueLength", 1 << 20,
            "longest array or string the communication check keeps (longer ones become unknown)");
    public static final Setting<Long> CHECK_MAX_MILLIS = Setting.longProperty("mpfl.check.maxMillis", 1_000L,
            "wall-clock budget of the communication check (a safety net behind mpfl.check.maxOperations)");
    public static final Setting<Integer> CHECK_LOCAL_LOOP_LIMIT = Setting.intProperty("mpfl.check.localLoopLimit", 10_000,
            "iterations after which the check stops following a loop without communication");
    public static final Setting<String> DOT = Setting.environment("MPFL_DOT", "dot on PATH",
            "the Graphviz dot program mpflc graph runs to draw SVG");
}
