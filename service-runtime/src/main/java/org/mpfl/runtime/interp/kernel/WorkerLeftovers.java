package org.mpfl.runtime.interp.kernel;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.mpfl.protocol.kernel.ExitGuard;
import org.mpfl.ir.files.FileTrees;

/**
 * What one kernel worker has outside this JVM — its process and the processes it started (its
 * {@link WorkerSession}), its shared-memory file, its socket directory — so that a JVM exiting with the worker still open removes them: a failed rank ends
 * {@code mpflc run --local} while other ranks are still starting their workers, and a file left in
 * {@code /dev/shm} holds memory until the next boot. The worker itself releases them when it closes or
 * fails to start ({@link #released}); a shutdown hook removes the rest. Paths go in the order they
 * are made and are deleted in reverse (a socket before its directory). The same hook removes the kernels' other
 * temporary directories ({@link #deleteTreeAtExit}: unpacked libraries, the Python runtime module).
 *
 * <p>Every such thing is made through {@link #unlessExiting}: the other threads of a JVM run on while its shutdown
 * hooks run (a Ctrl-C of {@code mpflc run --local} while a rank starts its worker), and a directory, file or process
 * made after the hook's removal — or between its making and its record here, when the JVM halts — was left behind
 * (a {@code mpfl-kernel-py-*} directory after SIGINT). The hook waits for what is being made, then nothing more is.
 */
final class WorkerLeftovers {
    private static final Set<WorkerLeftovers> OPEN = ConcurrentHashMap.newKeySet();
    private static final Set<Path> TREES = ConcurrentHashMap.newKeySet();
    /** After OPEN and TREES, which its hook reads. */
    private static final ExitGuard EXIT = new ExitGuard("mpfl-kernel-workers-exit", WorkerLeftovers::removeAllOpen);

    /**
     * Runs {@code making} unless this JVM exits; the exit's removal waits until it returns, so what it made and
     * recorded is removed, and nothing is made after the removal.
     *
     * @throws InterruptedIOException the JVM exits (the rank is being stopped with it: nothing is the worker's fault)
     */
    static <T> T unlessExiting(ExitGuard.Making<T> making) throws IOException {
        return EXIT.unlessExiting(making);
    }

    /** {@code root} and what it then holds is deleted when the JVM exits; call it inside {@link #unlessExiting}. */
    static Path deleteTreeAtExit(Path root) {
        TREES.add(root);
        return root;
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

    /** {@code path} (a file, or an empty directory) belongs to the worker; returns it. */
    synchronized Path path(Path path) {
        paths.add(path);
        if (EXIT.exiting()) {
            remove();
        }
        return path;
    }

    /** The worker's shared memory (its file) belongs to the worker; returns it. */
    SharedArena arena(SharedArena arena) {
        path(arena.file());
        return arena;
    }

    /** The worker's process and the processes it starts; returns it. */
    synchronized WorkerSession session(WorkerSession worker) {
        session = worker;
        if (EXIT.exiting()) {
            remove();
        }
        return worker;
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
        for (WorkerLeftovers leftovers : OPEN) {
            synchronized (leftovers) {
                leftovers.remove();
            }
        }
        TREES.forEach(FileTrees::deleteQuietly);
    }
}
