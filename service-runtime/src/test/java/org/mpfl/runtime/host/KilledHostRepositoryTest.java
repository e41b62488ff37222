package org.mpfl.runtime.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.protocol.launch.HostProcess;
import org.mpfl.protocol.launch.HostProcesses;
import org.mpfl.testing.StartsProcesses;

/**
 * A host killed by SIGKILL runs no clean-up: its repository (the workflow's archives and jars) stays in the
 * temporary directory. The next host started there removes it (Axis2Lifecycle, named with the PID).
 */
@StartsProcesses
class KilledHostRepositoryTest {

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void theNextHostRemovesTheRepositoryOfAKilledOne(@TempDir Path tmp) throws Exception {
        Path repository;
        try (HostProcesses killed = start(tmp)) {
            HostProcess h = killed.get(0);
            repository = repositoryOf(tmp, h.process().pid());
            assertTrue(Files.isDirectory(repository.resolve("services")), repository + " holds the host's services");
            h.process().destroyForcibly();
            assertTrue(h.process().waitFor(30, TimeUnit.SECONDS), "the killed host ended");
        }
        assertTrue(Files.isDirectory(repository), "SIGKILL ran no clean-up: " + repository + " stays until the next host");

        try (HostProcesses next = start(tmp)) {
            assertFalse(Files.exists(repository), "the next host removed the killed one's repository " + repository);
            assertTrue(Files.isDirectory(repositoryOf(tmp, next.get(0).process().pid())), "and keeps its own");
        }
    }

    private static HostProcesses start(Path tmp) throws Exception {
        return HostProcesses.builder().count(1).service("Nothing", HostProcessTest.Nothing.class)
                .jvmArg("-Djava.io.tmpdir=" + tmp).readyTimeout(Duration.ofSeconds(120)).start();
    }

    /** The repository of the host process {@code pid}: {@code mpfl-host-ID-pidPID-N}, exactly one. */
    private static Path repositoryOf(Path tmp, long pid) throws Exception {
        try (Stream<Path> s = Files.list(tmp)) {
            List<Path> found = s.filter(p -> p.getFileName().toString().startsWith("mpfl-host-")
                    && p.getFileName().toString().contains("-pid" + pid + "-")).toList();
            assertEquals(1, found.size(), "repositories of host process " + pid + " in " + tmp + ": " + found);
            return found.get(0);
        }
    }
}
