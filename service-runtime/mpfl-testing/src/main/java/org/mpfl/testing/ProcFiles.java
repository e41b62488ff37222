package org.mpfl.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What Linux shows of a child process to other users of the machine ({@code /proc/PID/cmdline},
 * {@code environ}, …), for tests that check no secret appears there. NUL separators become spaces.
 */
public final class ProcFiles {
    private ProcFiles() {
    }

    public static String read(Process p, String name) throws IOException {
        return new String(Files.readAllBytes(Path.of("/proc/" + p.pid() + "/" + name)), StandardCharsets.UTF_8).replace('\0', ' ');
    }
}
