package org.mpfl.runtime.interp.kernel;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shared-memory files of a JVM that is gone (a host killed by SIGKILL or the OOM killer ran no clean-up) are
 * removed by the next JVM that makes one; a live JVM's, and files named otherwise, stay.
 */
class SharedArenaSweepTest {
    @Test
    void theFilesOfAGoneJvmAreRemovedALiveOnesStay(@TempDir Path shm) throws Exception {
        // above Linux's largest pid_max (4194304): no process has it
        Path orphan = Files.createFile(shm.resolve("mpfl-kernel-999999999-123.shm"));
        Path mine = Files.createFile(shm.resolve("mpfl-kernel-" + ProcessHandle.current().pid() + "-456.shm"));
        Path older = Files.createFile(shm.resolve("mpfl-kernel-789.shm")); // no pid in its name: whose, nobody can tell
        Path other = Files.createFile(shm.resolve("someone-else-999999999.shm"));
        SharedArena.sweepOrphans(shm);
        assertFalse(Files.exists(orphan), "the gone JVM's file is removed");
        assertTrue(Files.exists(mine) && Files.exists(older) && Files.exists(other), "the rest stays");
    }

    @Test
    void aNewArenaIsNamedByItsJvm() throws Exception {
        SharedArena arena = SharedArena.create();
        try {
            assertTrue(arena.file().getFileName().toString().startsWith("mpfl-kernel-" + ProcessHandle.current().pid() + "-"),
                    arena.file().toString());
        } finally {
            arena.close();
        }
        assertFalse(Files.exists(arena.file()), "closed, it is gone");
    }
}
