package org.mpfl.engine.capacity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The job log directory is pruned to the 50 newest job outputs, none older than 14 days; nothing else is touched. */
class JobLogsTest {
    @TempDir
    Path dir;
    final long now = System.currentTimeMillis();

    Path log(String name, Duration age) throws Exception {
        Path f = Files.writeString(dir.resolve(name), "output of " + name + "\n");
        Files.setLastModifiedTime(f, FileTime.fromMillis(now - age.toMillis()));
        return f;
    }

    List<String> left() throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void theNewest50AreKeptAndNoneOlderThan14DaysButLiveJobsAndOtherFilesStay() throws Exception {
        assertEquals(50, JobLogs.KEEP_NEWEST);
        assertEquals(Duration.ofDays(14), JobLogs.MAX_AGE);
        for (int i = 0; i < 60; i++) {
            log("mpfl-slurm-h%02d.log".formatted(i), Duration.ofHours(i));
        }
        log("mpfl-slurm-old.log", Duration.ofDays(15));
        log("mpfl-slurm-live.log", Duration.ofDays(30));
        log("notes.log", Duration.ofDays(30));
        log("mpfl-slurm-h99.txt", Duration.ofDays(30));
        Files.createDirectories(dir.resolve("mpfl-dir.log"));
        Files.setLastModifiedTime(dir.resolve("mpfl-dir.log"), FileTime.fromMillis(now - Duration.ofDays(30).toMillis()));

        List<Path> deleted = JobLogs.prune(dir, Set.of("mpfl-slurm-live"), now);
        assertEquals(11, deleted.size(), deleted.toString());
        List<String> left = left();
        IntStream.range(0, 50).forEach(i -> assertTrue(left.contains("mpfl-slurm-h%02d.log".formatted(i)), "newest kept: " + i));
        IntStream.range(50, 60).forEach(i -> assertFalse(left.contains("mpfl-slurm-h%02d.log".formatted(i)), "beyond 50: " + i));
        assertFalse(left.contains("mpfl-slurm-old.log"), "older than 14 days");
        assertTrue(left.containsAll(List.of("mpfl-slurm-live.log", "notes.log", "mpfl-slurm-h99.txt", "mpfl-dir.log")), left.toString());

        // a few, all recent: nothing goes; a missing directory is nothing to prune
        assertEquals(List.of(), JobLogs.prune(dir, Set.of("mpfl-slurm-live"), now));
        assertEquals(List.of(), JobLogs.prune(dir.resolve("none"), Set.of(), now));
    }
}
