package org.mpfl.testing.childjvm;

import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;
import org.mpfl.ir.files.FileTrees;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Makes this test JVM's temporary directory before its first test and removes it, with everything in it, after its
 * last (a JUnit launcher session listener): so a build leaves nothing in {@code /tmp}. The directory is the
 * JVM's {@code java.io.tmpdir} from its start ({@code -Djava.io.tmpdir=/tmp/mpfl-test-BUILD-FORK}, the parent POM's
 * {@code mpfl.test.ownTmpdir}: the JDK reads the property once, at start, so it cannot be moved later), and every
 * JVM the tests start gets it too ({@code HostProcesses.tempDirectoryOption()}, through {@link ChildJvm#command} and
 * {@code HostProcesses}; a test that starts {@code bin/mpflc} passes it as {@code TMPDIR}). A JVM whose
 * {@code java.io.tmpdir} is not named {@code mpfl-test-…} (an IDE's) is left as it is.
 *
 * <p>The path stays short on purpose: the kernel workers' Unix sockets live under it (at most 107 bytes).
 */
public final class TestTempDirectory implements LauncherSessionListener {
    static final String PREFIX = "mpfl-test-";
    static final String PERMISSIONS = "rwx--x--x";
    private static Path directory;

    @Override
    public void launcherSessionOpened(LauncherSession session) {
        open();
    }

    @Override
    public void launcherSessionClosed(LauncherSession session) {
        close();
    }

    /** This JVM's own temporary directory, or {@code null} when it runs in the system's. */
    static synchronized Path directory() {
        return directory;
    }

    private static synchronized void open() {
        Path wanted = Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath();
        if (directory != null || !wanted.getFileName().toString().startsWith(PREFIX)) {
            return;
        }
        try {
            // nobody else may list it or plant files in it; others may only pass through it (--x), as the daemons
            // that tests start as their own users (PostgreSQL as postgres, Slurm's munge) must to reach their directories
            // (set after the making, which the umask may narrow)
            Files.createDirectory(wanted, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            Files.setPosixFilePermissions(wanted, PosixFilePermissions.fromString(PERMISSIONS));
        } catch (FileAlreadyExistsException e) {
            // the earlier test JVM of this build with this fork number (Surefire's, before Failsafe's) could not
            // remove it: ours to use only if it is a directory of this user's that nobody else may enter
            refuseUnlessOwn(wanted);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make the tests' temporary directory " + wanted, e);
        }
        directory = wanted;
    }

    private static void refuseUnlessOwn(Path dir) {
        try {
            String me = System.getProperty("user.name");
            if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)
                    || !Files.getOwner(dir, LinkOption.NOFOLLOW_LINKS).getName().equals(me)
                    || !PosixFilePermissions.toString(Files.getPosixFilePermissions(dir, LinkOption.NOFOLLOW_LINKS)).equals(PERMISSIONS)) {
                throw new IllegalStateException("the tests' temporary directory " + dir + " exists and is not a directory of "
                        + me + " that only " + me + " may list and write (" + PERMISSIONS + "): the tests do not write there");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot check the tests' temporary directory " + dir, e);
        }
    }

    private static synchronized void close() {
        if (directory == null) {
            return;
        }
        try {
            FileTrees.delete(directory);
        } catch (IOException | UncheckedIOException e) {
            System.err.println("could not remove the tests' temporary directory " + directory + ": " + e);
        }
    }
}
