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

    /**
     * A database the engine cannot write (here an immutable flag, as chattr +i sets; a read-only mount is the same) is
     * refused at the start, naming the file: H2 opened it read-only without a word, the engine served, and every run
     * failed at its first write.
     */
    @Test
    void aDatabaseTheEngineCannotWriteIsRefusedAtTheStart() throws Exception {
        try (EngineDatabase created = EngineDatabase.openEmbedded(dir)) {
            // the database file exists, as after an earlier engine
        }
        Path db = dir.resolve("engine.mv.db");
        Process chattr = new ProcessBuilder("chattr", "+i", db.toString()).redirectErrorStream(true).start();
        String chattrSaid = new String(chattr.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(chattr.waitFor(30, TimeUnit.SECONDS) && chattr.exitValue() == 0, "chattr +i (e2fsprogs, as root): " + chattrSaid);
        try {
            List<String> cmd = new ArrayList<>(ChildJvm.command(ChildJvm.shortLivedOptions("256m"), Mpflc.class.getName()));
            cmd.addAll(List.of("up", "--hosts", "0", "--port", "0", "--data", dir.toString()));
            Path err = dir.resolve("read-only.err");
            Process up = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(err.toFile()).start();
            if (!up.waitFor(90, TimeUnit.SECONDS)) {
                up.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                throw new AssertionError("the engine serves on a database it cannot write: " + Files.readString(err, StandardCharsets.UTF_8));
            }
            String said = Files.readString(err, StandardCharsets.UTF_8);
            assertNotEquals(0, up.exitValue(), said);
            assertTrue(said.contains("the engine cannot write " + db.toAbsolutePath()) && said.contains("immutable flag"), said);
        } finally {
            new ProcessBuilder("chattr", "-i", db.toString()).start().waitFor(30, TimeUnit.SECONDS);
        }
    }
}
