package org.mpfl.engine.store;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.cli.Mpflc;
import org.mpfl.testing.StartsProcesses;
import org.mpfl.testing.childjvm.ChildJvm;

/** A second engine on a data directory whose database another engine holds says so, in its own words, not H2's. */
@StartsProcesses
@Timeout(120)
class SharedDataDirectoryTest {
    @TempDir
    Path dir;

    @Test
    void aSecondEngineOnTheSameDataDirectorySaysAnotherEngineUsesIt() throws Exception {
        try (EngineDatabase held = EngineDatabase.openEmbedded(dir)) {
            List<String> cmd = new ArrayList<>(ChildJvm.command(ChildJvm.shortLivedOptions("256m"), Mpflc.class.getName()));
            cmd.addAll(List.of("up", "--hosts", "0", "--port", "0", "--data", dir.toString()));
            Path err = dir.resolve("second-engine.err");
            Process second = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(err.toFile()).start();
            // it gives up at its start: 90 s is a margin for a loaded 2-core machine, not a measurement
            if (!second.waitFor(90, TimeUnit.SECONDS)) {
                second.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                throw new AssertionError("the second engine still runs: " + Files.readString(err, StandardCharsets.UTF_8));
            }
            String said = Files.readString(err, StandardCharsets.UTF_8);
            assertNotEquals(0, second.exitValue(), said);
            assertTrue(said.contains("another engine uses the data directory " + dir.toAbsolutePath()), said);
            assertTrue(said.contains("give this one another --data DIR"), said);
            assertFalse(Files.exists(dir.resolve("engine.trace.db")), "H2's trace of the refusal is left in the data directory");
        }
    }
}
