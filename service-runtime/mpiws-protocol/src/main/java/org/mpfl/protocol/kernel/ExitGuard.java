package org.mpfl.protocol.kernel;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Removal, when this JVM exits, of what threads make outside it (temporary directories and files, processes), with
 * nothing made after the removal. The other threads of a JVM run on while its shutdown hooks run (a Ctrl-C of
 * {@code mpflc run --local} or {@code mpflc check}), so a file made after a hook's removal — or between its making
 * and its record for removal — would be left behind. Everything is made through {@link #unlessExiting}: the hook
 * waits for what is being made, then nothing more is. Used by the runtime's kernel workers (WorkerLeftovers) and by
 * the Python scripts of {@code mpflc check} ({@link PythonScript}).
 */
public final class ExitGuard {
    /** Something that makes a file, directory or process outside the JVM and records it for removal. */
    @FunctionalInterface
    public interface Making<T> {
        T make() throws IOException;
    }

    /** Read: something is being made and recorded; write: the hook removes everything. */
    private final ReadWriteLock making = new ReentrantReadWriteLock();
    private volatile boolean exiting;

    /**
     * Registers the shutdown hook {@code name} that runs {@code removal} once nothing is being made any more.
     * Created while the JVM already exits, the guard makes nothing.
     */
    public ExitGuard(String name, Runnable removal) {
        try {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                making.writeLock().lock(); // what is being made now is recorded first (bounded: no making waits for anything)
                try {
                    exiting = true;
                } finally {
                    making.writeLock().unlock();
                }
                removal.run();
            }, name));
        } catch (IllegalStateException alreadyExiting) {
            exiting = true;
        }
    }

    /**
     * Runs {@code making} unless this JVM exits; the exit's removal waits until it returns, so what it made and
     * recorded is removed, and nothing is made after the removal.
     *
     * @throws InterruptedIOException the JVM exits ("this JVM is exiting")
     */
    public <T> T unlessExiting(Making<T> making) throws IOException {
        this.making.readLock().lock();
        try {
            if (exiting) {
                throw new InterruptedIOException("this JVM is exiting");
            }
            return making.make();
        } finally {
            this.making.readLock().unlock();
        }
    }

    /** Whether the JVM exits (the removal has begun, or is about to): a record made now is removed by its maker. */
    public boolean exiting() {
        return exiting;
    }
}
