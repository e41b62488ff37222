package org.mpfl.ir.cli;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * An option naming a program to run ({@code --python PATH} of {@code mpflc run --local}, {@code up} and {@code host}),
 * read as the user meant it: a path with a {@code /} is the user's, against the working directory, and must be an
 * executable file; a bare name ({@code python3}) is looked up on the PATH where it is run. The value is passed on to
 * processes that start elsewhere (a kernel worker starts in its unpacked libraries' directory), where a relative
 * path would name another file.
 */
public final class ExecutablePath {
    private ExecutablePath() {
    }

    /** {@code given} as an absolute path when it has a {@code /}, checked to be an executable file; a bare name as it is. */
    public static String resolve(String flag, String given) throws UsageException {
        if (given.indexOf('/') < 0) {
            return given;
        }
        // not normalized: '..' after a symlinked directory is the directory the system finds, not the lexical one
        Path path = Path.of(given).toAbsolutePath();
        if (!Files.exists(path)) {
            throw new UsageException(flag + " " + given + ": no such file");
        }
        if (!Files.isRegularFile(path) || !Files.isExecutable(path)) {
            throw new UsageException(flag + " " + given + ": not an executable file");
        }
        return path.toString();
    }
}
