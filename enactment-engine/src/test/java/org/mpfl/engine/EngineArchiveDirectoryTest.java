package org.mpfl.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An archive directory the engine cannot use stops its start with one line naming the directory and why (what
 * {@code mpflc up} prints after "mpflc up: "). It said only "DATA/archives: already exists" (the JDK's exception,
 * the path alone), which neither named the archive directory nor said what was wrong with it. The data directory itself
 * ({@code --data}) likewise: a file given as {@code --data} said "F: already exists" (found by the deployment walkthrough).
 */
class EngineArchiveDirectoryTest {
    @TempDir
    Path dir;

    @Test
    void aFileWhereTheArchiveDirectoryGoesStopsTheStartNamingItAndWhy() throws Exception {
        Path archives = dir.resolve("archives");
        Files.writeString(archives, "not a directory");
        IOException e = assertThrows(IOException.class, () -> Engine.start(new EngineConfig().port(0).dataDir(dir)).close());
        assertEquals("cannot use the archive directory " + archives + ": it is a file, not a directory", e.getMessage());
    }

    @Test
    void aPathThroughAFileStopsTheStartNamingTheFileInTheWay() throws Exception {
        Path file = dir.resolve("file");
        Files.writeString(file, "not a directory");
        IOException e = assertThrows(IOException.class,
                () -> org.mpfl.engine.deploy.DeploymentService.archiveDirectory(file.resolve("archives")));
        assertEquals("cannot use the archive directory " + file.resolve("archives") + ": " + file + " is a file, not a directory",
                e.getMessage());
    }

    @Test
    void aFileGivenAsTheDataDirectoryStopsTheStartNamingItAndWhy() throws Exception {
        Path file = dir.resolve("engine");
        Files.writeString(file, "not a directory");
        IOException e = assertThrows(IOException.class, () -> Engine.start(new EngineConfig().port(0).dataDir(file)).close());
        assertEquals("cannot use the data directory " + file + ": it is a file, not a directory", e.getMessage());
        IOException below = assertThrows(IOException.class, () -> Engine.createDataDirectory(file.resolve("data")));
        assertEquals("cannot use the data directory " + file.resolve("data") + ": " + file + " is a file, not a directory",
                below.getMessage());
    }
}
