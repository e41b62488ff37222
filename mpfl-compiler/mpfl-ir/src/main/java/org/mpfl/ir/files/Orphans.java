package org.mpfl.ir.files;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Temporary files and directories named with the PID of the JVM that made them, so that the next JVM can
 * remove what a killed one left: SIGKILL and the OOM killer run no shutdown hook, and a host's repository
 * (the workflow's archives and jars) or a kernel's shared memory in {@code /dev/shm} would stay until the
 * next boot. Only this user's entries, named with a PID no process has now, are removed; a PID in use again
 * by another process keeps its entry (left, never one still used).
 */
public final class Orphans {
    private Orphans() {
    }

    /** {@code prefix} followed by this JVM's PID and a dash: the start of a name {@link #sweep} can tell. */
    public static String named(String prefix) {
        return prefix + ProcessHandle.current().pid() + "-";
    }

    /**
     * Removes the entries of {@code directory} matching {@code glob} whose name matches {@code withPid} (group 1
     * the PID) when no process has that PID and this user owns the entry; best effort (what cannot be listed or
     * deleted stays).
     *
     * @return how many entries were removed
     */
    public static int sweep(Path directory, String glob, Pattern withPid) {
        int removed = 0;
        String me = System.getProperty("user.name");
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory, glob)) {
            for (Path entry : entries) {
                Matcher m = withPid.matcher(entry.getFileName().toString());
                if (!m.matches() || alive(m.group(1))) {
                    continue;
                }
                try {
                    if (Files.getOwner(entry, LinkOption.NOFOLLOW_LINKS).getName().equals(me) && FileTrees.deleteQuietly(entry)) {
                        removed++;
                    }
                } catch (IOException | UnsupportedOperationException e) {
                    // another user's, or gone meanwhile: not ours to remove
                }
            }
        } catch (IOException | RuntimeException e) {
            // a sweep that cannot list the directory leaves it as it was
        }
        return removed;
    }

    private static boolean alive(String pid) {
        try {
            return ProcessHandle.of(Long.parseLong(pid)).isPresent();
        } catch (NumberFormatException e) {
            return true; // not a PID this sweep can judge
        }
    }
}
