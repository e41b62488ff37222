package org.mpfl.ir.files;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Deleting a directory tree, the one way every module does it (temporary repositories, work
 * directories, checkpoint directories). Symbolic links are deleted as links: what they point to is
 * never walked into or deleted (a host's {@code services/} may be a link to the user's directory).
 */
public final class FileTrees {
    private FileTrees() {
    }

    /**
     * Deletes {@code root} and everything under it; nothing happens when it does not exist.
     *
     * @throws IOException when a file or directory cannot be deleted (what was deleted before stays deleted)
     */
    public static void delete(Path root) throws IOException {
        if (!Files.exists(root, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        List<Path> deepestFirst;
        try (Stream<Path> s = Files.walk(root)) {
            deepestFirst = s.sorted(Comparator.reverseOrder()).toList();
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        for (Path p : deepestFirst) {
            Files.deleteIfExists(p);
        }
    }

    /**
     * {@link #delete}, best effort: for temporary trees whose leftovers are harmless (a failure to delete
     * must not hide the result or the error of the work that used them). {@code null} is ignored.
     *
     * @return whether the tree is gone
     */
    public static boolean deleteQuietly(Path root) {
        if (root == null) {
            return true;
        }
        try {
            delete(root);
        } catch (IOException | UncheckedIOException e) {
            // fall through: the caller decides whether a leftover matters
        }
        return !Files.exists(root, java.nio.file.LinkOption.NOFOLLOW_LINKS);
    }

    /** A tree to delete if this JVM exits first ({@link #deleteAtExit}); {@link #close} forgets it. */
    public interface AtExit extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * Deletes {@code root} when this JVM exits (SIGTERM, Ctrl-C) before the answer is closed: a temporary tree that a
     * thread still writes when the JVM is stopped, whose own {@code finally} never runs then (the shutdown hooks do,
     * the other threads just stop). The writer may create a file between the walk and the removal of its directory:
     * the deletion is tried again, a few times.
     *
     * @throws IllegalStateException the JVM already exits ({@code root} is deleted at once)
     */
    public static AtExit deleteAtExit(Path root) {
        Thread hook = new Thread(() -> {
            for (int attempt = 0; attempt < 5 && !deleteQuietly(root); attempt++) {
                Thread.onSpinWait();
            }
        }, "mpfl-delete-at-exit");
        try {
            Runtime.getRuntime().addShutdownHook(hook);
        } catch (IllegalStateException exiting) {
            deleteQuietly(root); // the JVM already exits: the caller's work ends with it
            throw exiting;
        }
        return () -> {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException exiting) {
                // the hook deletes it, as the caller does
            }
        };
    }
}
