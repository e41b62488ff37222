package org.mpfl.runtime.interp.kernel;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What one kernel worker has outside this JVM — its process and the processes it started (its
 * {@link WorkerSession}), its shared-memory file, its socket directory — so that a JVM exiting with the worker still open removes them: a failed rank ends
 * {@code mpflc run --local} while other ranks are still starting their workers, and a file left in
 * {@code /dev/shm} holds memory until the next boot. The worker itself releases them when it closes or
 * fails to start ({@link #released}); a shutdown hook removes the rest. Paths go in the order they
 * are made and are deleted in reverse (a socket before its directory).
 */
final class WorkerLeftovers {
    private static final Set<WorkerLeftovers> OPEN = ConcurrentHashMap.newKeySet();
    private static volatile boolean exiting;

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(WorkerLeftovers::removeAllOpen, "mpfl-kernel-workers-exit"));
    }

    private final List<Path> paths = new ArrayList<>();
    private WorkerSession session;

    private WorkerLeftovers() {
    }

    /** A new worker's record, removed by the shutdown hook until {@link #released}. */
    static WorkerLeftovers open() {
        WorkerLeftovers leftovers = new WorkerLeftovers();
        OPEN.add(leftovers);
        return leftovers;
    }

    /** {@code path} (a file, or an empty directory) belongs to the worker. */
    synchronized void path(Path path) {
        paths.add(path);
        if (exiting) {
            remove();
        }
    }

    /** The worker's process and the processes it starts. */
    synchronized void session(WorkerSession worker) {
        session = worker;
        if (exiting) {
            remove();
        }
    }

    /** The worker removed its files and stopped its process itself: nothing is left for the hook. */
    void released() {
        OPEN.remove(this);
    }

    /** Kills the processes at once and deletes the paths (the worker's own graceful stop is not waited for). */
    synchronized void removeNow() {
        remove();
        released();
    }

    private void remove() {
        if (session != null) {
            session.stop();
        }
        for (int i = paths.size() - 1; i >= 0; i--) {
            try {
                Files.deleteIfExists(paths.get(i));
            } catch (IOException e) {
                // a directory a stranger wrote into stays; nothing depends on it
            }
        }
    }

    private static void removeAllOpen() {
        exiting = true;
        for (WorkerLeftovers leftovers : OPEN) {
            synchronized (leftovers) {
                leftovers.remove();
            }
        }
    }
}
