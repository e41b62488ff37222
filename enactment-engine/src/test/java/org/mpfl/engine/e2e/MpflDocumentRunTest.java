package org.mpfl.engine.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.local.LocalCluster;
import org.mpfl.engine.run.RunSettings;
import org.mpfl.testing.MpflcCall;
import org.mpfl.testing.StartsProcesses;

/**
 * {@link DocumentRunCases} on an engine with two service-host child processes
 * ({@code mpflc run DOC --engine URL --json}): compiled, the generated services deployed onto the hosts,
 * every rank interpreted there, across the two hosts.
 */
@StartsProcesses
class MpflDocumentRunTest extends DocumentRunCases {
    static LocalCluster cluster;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = LocalCluster.start(new EngineConfig().port(0).dataDir(dir.resolve("engine"))
                .runSettings(new RunSettings(Duration.ofSeconds(30), Duration.ofSeconds(2), Duration.ofMillis(500), 2, "auto")),
                2, Duration.ofSeconds(90));
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** {@code mpflc logs RUN}: every line the engine kept, oldest first, a rank's alone with {@code --rank}. */
    @Test
    void logsPrintsEveryLineOfARunAndOneRanksWithRank() throws Exception {
        Result r = runShown("logging");
        assertEquals(0, r.exit(), r.err());
        java.util.regex.Matcher id = java.util.regex.Pattern.compile("run ([A-Za-z0-9_-]{16})").matcher(r.err());
        assertTrue(id.find(), r.err());
        MpflcCall all = MpflcCall.run(Stream.concat(Stream.of("logs", id.group(1)), where().stream()).toArray(String[]::new));
        assertEquals(0, all.exit(), all.err());
        List<String> lines = all.out().lines().toList();
        assertEquals(7, lines.size(), all.out());
        assertTrue(lines.stream().anyMatch(l -> l.matches("\\S+Z rank 1 WARN rank 1 is done")), all.out());
        MpflcCall one = MpflcCall.run(Stream.concat(Stream.of("logs", id.group(1), "--rank", "0"), where().stream())
                .toArray(String[]::new));
        assertEquals(List.of("step 0 of rank 0", "step 1 of rank 0", "step 2 of rank 0"),
                one.out().lines().map(l -> l.replaceFirst("^\\S+Z rank 0 INFO ", "")).toList(), one.out());
    }

    @Override
    List<String> where() {
        return List.of("--engine", cluster.engine().url(), "--data", cluster.engine().config().dataDir().toString());
    }
}
