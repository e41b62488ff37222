package org.mpfl.ir.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --python ../venv/bin/python} was passed on as given and resolved where the kernel worker started (the unpacked
 * libraries' directory): every rank failed with {@code …/mpfl-kernels-…/../venv/bin/python: No such file or directory}.
 * A path is the user's, against the working directory, and checked when the command line is read.
 */
class ExecutablePathTest {
    @TempDir
    Path dir;

    @Test
    void aRelativePathIsResolvedAgainstTheWorkingDirectory() throws Exception {
        Path python = Files.createFile(dir.resolve("python"), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path cwd = Path.of("").toAbsolutePath();
        String relative = cwd.relativize(python).toString();
        for (String given : new String[] {relative, "./" + relative}) {
            String resolved = ExecutablePath.resolve("--python", given);
            assertTrue(Path.of(resolved).isAbsolute(), resolved);
            assertTrue(Files.isSameFile(python, Path.of(resolved)), resolved);
        }
    }

    @Test
    void aBareNameStaysAPathLookup() throws Exception {
        assertEquals("python3", ExecutablePath.resolve("--python", "python3"));
    }

    @Test
    void aMissingOrNotExecutableFileIsAUsageErrorNamingTheFlag() throws Exception {
        UsageException missing = assertThrows(UsageException.class, () -> ExecutablePath.resolve("--python", dir + "/no/python"));
        assertEquals("--python " + dir + "/no/python: no such file", missing.getMessage());
        Path plain = Files.createFile(dir.resolve("plain"));
        UsageException notExecutable = assertThrows(UsageException.class, () -> ExecutablePath.resolve("--python", plain.toString()));
        assertEquals("--python " + plain + ": not an executable file", notExecutable.getMessage());
        UsageException directory = assertThrows(UsageException.class, () -> ExecutablePath.resolve("--python", dir + "/"));
        assertEquals("--python " + dir + "/: not an executable file", directory.getMessage());
    }
}
