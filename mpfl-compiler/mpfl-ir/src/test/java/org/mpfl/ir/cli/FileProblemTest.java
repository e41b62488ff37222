package org.mpfl.ir.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A file that cannot be read is named once, with the reason. */
class FileProblemTest {
    @Test
    void namesTheFileOnceWithTheReason(@TempDir Path dir) {
        Path missing = dir.resolve("slurm.jwtt");
        IOException none = assertThrows(IOException.class, () -> Files.readString(missing));
        assertEquals(missing + ": no such file", FileProblem.of(missing, none));
        IOException directory = assertThrows(IOException.class, () -> Files.readString(dir));
        assertEquals(dir + ": Is a directory", FileProblem.of(dir, directory));
        assertEquals(missing + ": disk on fire", FileProblem.of(missing, new IOException("disk on fire")));
    }
}
