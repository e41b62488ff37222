package org.mpfl.engine.run;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a run's view keeps of one rank's log: its newest {@link #MAX_LINES} lines ({@code timeMs}, {@code level},
 * {@code message}) and how many it reported in all ({@code GET /api/runs/{id}/logs} has every one). The engine's
 * runs and the runs in mpflc's own JVM keep it alike, so that {@code mpflc run} follows both the same way. Not
 * thread-safe: its owner's lock guards it.
 */
public final class LogTail {
    /** Lines kept, the newest. */
    public static final int MAX_LINES = 500;

    private final Deque<Map<String, Object>> lines = new ArrayDeque<>();
    private long count;

    /** A line as a rank's LOG event reports it ({@code level} {@code null}: info); the oldest beyond {@link #MAX_LINES} goes. */
    public void add(long timeMs, String level, String message) {
        count++;
        keep(line(timeMs, level == null ? "info" : level, message));
    }

    /** The lines and count a run's record kept, for a re-attached run ({@code count} below the lines': the lines'). */
    void restore(List<Map<String, Object>> kept, long keptCount) {
        kept.forEach(this::keep);
        count = Math.max(count, keptCount);
    }

    /** The kept lines, oldest first. */
    public List<Map<String, Object>> lines() {
        return List.copyOf(lines);
    }

    /** Every line the rank reported (at least the kept ones). */
    public long count() {
        return Math.max(count, lines.size());
    }

    private void keep(Map<String, Object> line) {
        if (lines.size() >= MAX_LINES) {
            lines.removeFirst();
        }
        lines.addLast(line);
    }

    private static Map<String, Object> line(long timeMs, String level, String message) {
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("timeMs", timeMs);
        line.put("level", level);
        line.put("message", message);
        return line;
    }
}
