package org.mpfl.compiler.comm;

import org.mpfl.compiler.settings.CompilerSettings;

/**
 * Bounds of one run of the communication check, so that it stays fast on any document (a loop of a
 * billion steps, a huge rank count, an array of a gigabyte): what a bound stops is reported as a
 * warning, never silently dropped. Overridable with system properties
 * {@code mpfl.check.maxOperations}, {@code mpfl.check.maxRanks}, {@code mpfl.check.maxValueLength},
 * {@code mpfl.check.maxMillis}.
 *
 * @param maxOperations  activities and loop tests executed over all ranks
 * @param maxRanks       largest world size analysed
 * @param maxValueLength longest array or string the check keeps (longer ones become unknown)
 * @param maxMillis      wall-clock budget (a safety net behind {@code maxOperations})
 * @param localLoopLimit iterations after which a loop without communication is no longer followed:
 *                       its assignments become unknown, the analysis continues after it
 */
public record CheckLimits(long maxOperations, int maxRanks, int maxValueLength, long maxMillis, int localLoopLimit) {

    /** The defaults, overridden by system properties where set. */
    public static CheckLimits fromSystemProperties() {
        return new CheckLimits(
                CompilerSettings.CHECK_MAX_OPERATIONS.get(),
                CompilerSettings.CHECK_MAX_RANKS.get(),
                CompilerSettings.CHECK_MAX_VALUE_LENGTH.get(),
                CompilerSettings.CHECK_MAX_MILLIS.get(),
                CompilerSettings.CHECK_LOCAL_LOOP_LIMIT.get());
    }
}
