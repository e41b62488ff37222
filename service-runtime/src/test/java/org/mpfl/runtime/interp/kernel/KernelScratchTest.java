package org.mpfl.runtime.interp.kernel;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.ir.files.FileTrees;

/** The kernels' temporary directories carry their JVM's PID; those of a JVM that is gone are removed, the rest stays. */
class KernelScratchTest {
    /** Above Linux's largest pid_max (4194304): no process has it. */
    private static final String GONE = "999999999";

    @Test
    void theDirectoriesOfAGoneJvmAreRemovedOfEveryKind(@TempDir Path tmp) throws Exception {
        Path libraries = Files.createDirectories(tmp.resolve("mpfl-kernels-" + GONE + "-1").resolve("kernels"));
        Files.writeString(libraries.resolve("jacobi.py"), "def sweep(): pass\n");
        Path runtime = Files.createDirectory(tmp.resolve("mpfl-kernel-py-" + GONE + "-2"));
        Path socket = Files.createDirectory(tmp.resolve("mpfl-k" + GONE + "-3"));
        long me = ProcessHandle.current().pid();
        Path live = Files.createDirectory(tmp.resolve("mpfl-k" + me + "-4"));
        Path shm = Files.createFile(tmp.resolve("mpfl-kernel-" + GONE + "-5.shm")); // SharedArena's own sweep's
        Path older = Files.createDirectory(tmp.resolve("mpfl-kernels-6")); // no PID: whose, nobody can tell

        KernelScratch.sweepOrphans(tmp);

        assertFalse(Files.exists(libraries.getParent()) || Files.exists(runtime) || Files.exists(socket), "a gone JVM's directories");
        assertTrue(Files.exists(live) && Files.exists(shm) && Files.exists(older), "the rest stays");
    }

    @Test
    void aNewDirectoryIsNamedByItsJvm() throws Exception {
        Path made = KernelScratch.SOCKET.create();
        try {
            assertTrue(made.getFileName().toString().startsWith("mpfl-k" + ProcessHandle.current().pid() + "-"), made.toString());
        } finally {
            FileTrees.deleteQuietly(made);
        }
    }
}
