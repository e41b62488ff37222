package org.mpfl.engine.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code <log>} lines of a followed run that arrived since the last look, for {@code mpflc run} and
 * {@code status --follow} to print as they come, as {@code mpirun} prints its ranks' output: oldest
 * first across the ranks, {@code rank 3: the message} ({@code rank 3 WARN: …} for other levels). A
 * run's view keeps only a rank's newest lines; what fell out of it between two looks is counted, and
 * {@code mpflc logs RUN} has every line when an engine keeps the run's record. A {@code --local} run keeps none
 * (its ranks in this JVM wait for the lines to be shown instead, {@code InProcessRun#followLogs}).
 */
final class RunLogLines {
    private record Line(long timeMs, int rank, String text) {
    }

    /** Lines printed so far, by rank: the rank's {@code logCount} at the last look, in attempt {@link #attempt}. */
    private final Map<Integer, Long> seen = new HashMap<>();
    /** The run's attempt at the last look: a restart or resume starts its ranks', and their counts, afresh. */
    private int attempt = -1;
    /** Whether an engine keeps the run's record after this command ends ({@code mpflc logs} reads it). */
    private final boolean recorded;

    /** @param recorded an engine keeps the run's record after this command ends ({@code mpflc logs} has every line) */
    RunLogLines(boolean recorded) {
        this.recorded = recorded;
    }

    /** The lines of {@code run} (its {@code ranks[].logs} and {@code logCount}) not returned before. */
    List<String> since(JsonNode run) {
        List<Line> lines = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        int now = run.path("attempts").asInt(1);
        if (now != attempt) {
            seen.clear();
            attempt = now;
        }
        for (JsonNode r : run.path("ranks")) {
            int rank = r.path("rank").asInt();
            JsonNode logs = r.path("logs");
            long count = r.path("logCount").asLong(logs.size());
            long before = seen.getOrDefault(rank, 0L);
            long fresh = count - before;
            if (fresh <= 0) {
                continue;
            }
            seen.put(rank, count);
            int kept = logs.size();
            if (fresh > kept) {
                skipped.add("rank " + rank + ": … " + (fresh - kept) + " line(s) not shown " + (recorded
                        ? "(mpflc logs " + run.path("id").asText() + " --rank " + rank + " has them)"
                        : "(a --local run keeps no record to read them from; on an engine, mpflc up, mpflc logs has every line)"));
            }
            for (int i = (int) Math.max(0, kept - fresh); i < kept; i++) {
                JsonNode l = logs.get(i);
                String level = l.path("level").asText("info");
                lines.add(new Line(l.path("timeMs").asLong(), rank, "rank " + rank
                        + (level.equalsIgnoreCase("info") ? "" : " " + level.toUpperCase(java.util.Locale.ROOT)) + ": "
                        + l.path("message").asText()));
            }
        }
        lines.sort(Comparator.comparingLong(Line::timeMs).thenComparingInt(Line::rank));
        List<String> out = new ArrayList<>(skipped);
        lines.forEach(l -> out.add(l.text()));
        return out;
    }
}
