package org.mpfl.testing.childjvm;

import org.junit.jupiter.api.Test;
import org.mpfl.protocol.launch.HostProcesses;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * This test JVM runs in a temporary directory of its own (the build's -Djava.io.tmpdir), that only its user may list and write, made by the
 * session listener; the JDK's two temporary-file helpers use it, and every JVM a test starts is given it.
 */
class TestTempDirectoryTest {
    @Test
    void theJdksTemporaryFilesAndTheChildrenUseThisJvmsOwnDirectory() throws Exception {
        Path own = TestTempDirectory.directory();
        assertNotNull(own, "the launcher session listener made no directory");
        assertTrue(own.getFileName().toString().startsWith(TestTempDirectory.PREFIX), own.toString());
        assertTrue(own.toString().length() < 60, "short enough for the kernel workers' Unix sockets under it: " + own);
        assertEquals("rwx--x--x", PosixFilePermissions.toString(Files.getPosixFilePermissions(own)));
        assertEquals(own.toString(), System.getProperty("java.io.tmpdir"));

        Path nio = Files.createTempDirectory("nio-");
        File io = File.createTempFile("io-", ".tmp");
        try {
            assertEquals(own, nio.getParent(), "java.nio.file.Files");
            assertEquals(own.toFile(), io.getParentFile(), "java.io.File");
        } finally {
            Files.delete(nio);
            Files.delete(io.toPath());
        }

        String option = "-Djava.io.tmpdir=" + own;
        assertEquals(option, HostProcesses.tempDirectoryOption());
        assertTrue(ChildJvm.command(java.util.List.of(), "Main").contains(option), "ChildJvm.command passes it on");
    }
}
