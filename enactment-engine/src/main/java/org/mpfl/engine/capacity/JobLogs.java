package org.mpfl.engine.capacity;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The output files of the jobs a capacity provider ran ({@code mpfl-HOSTID.log} in its job log directory): one per
 * job, never read again once the job is gone but for a failure's diagnosis, so they are pruned to the
 * {@value #KEEP_NEWEST} newest and none older than {@link #MAX_AGE} (see {@code docs/deployment.md}, "Capacity from
 * Slurm"). Only files named as the engine names its jobs are touched: the directory may be shared with other things.
 */
public final class JobLogs {
    /** The most job output files kept (the newest by modification time). */
    public static final int KEEP_NEWEST = 50;
    /** Job output files last written longer ago than this are deleted. */
    public static final Duration MAX_AGE = Duration.ofDays(14);

    private JobLogs() {
    }

    /** Whether a file is the output of one of the engine's jobs ({@code mpfl-….log}, as {@link HostJob#name} + ".log"). */
    static boolean isJobLog(Path file) {
        String n = file.getFileName().toString();
        return n.startsWith("mpfl-") && n.endsWith(".log") && Files.isRegularFile(file, java.nio.file.LinkOption.NOFOLLOW_LINKS);
    }

    /**
     * Deletes the job output files in {@code dir} beyond the {@value #KEEP_NEWEST} newest and those older than
     * {@link #MAX_AGE}, but never the output of a job still held ({@code liveJobs}: job names); returns what it deleted.
     * A directory that does not exist (yet) holds nothing to prune.
     */
    public static List<Path> prune(Path dir, Set<String> liveJobs, long nowMs) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        record Log(Path file, long modifiedMs) {
        }
        List<Log> logs = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(JobLogs::isJobLog).toList()) {
                String job = f.getFileName().toString().substring(0, f.getFileName().toString().length() - ".log".length());
                if (liveJobs.contains(job)) {
                    continue;
                }
                try {
                    logs.add(new Log(f, Files.getLastModifiedTime(f, java.nio.file.LinkOption.NOFOLLOW_LINKS).toMillis()));
                } catch (java.nio.file.NoSuchFileException e) {
                    // gone meanwhile
                }
            }
        }
        logs.sort(Comparator.comparingLong(Log::modifiedMs).reversed());
        List<Path> deleted = new ArrayList<>();
        for (int i = 0; i < logs.size(); i++) {
            Log l = logs.get(i);
            if (i >= KEEP_NEWEST || nowMs - l.modifiedMs() > MAX_AGE.toMillis()) {
                if (Files.deleteIfExists(l.file())) {
                    deleted.add(l.file());
                }
            }
        }
        return deleted;
    }
}
