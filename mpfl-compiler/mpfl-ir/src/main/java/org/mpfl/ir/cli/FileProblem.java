package org.mpfl.ir.cli;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import java.util.Set;

/**
 * Why a file named on a command line could not be read or written, in words: the JDK's {@code NoSuchFileException},
 * {@code AccessDeniedException} and their kind carry only the path as their message, so "cannot read F: " + its message
 * said the path twice and no reason (and a command that failed on one said only the path). Beside the command frame
 * ({@link Commands}, which says it for any command that fails on a file) so that every command says the same.
 */
public final class FileProblem {
    private FileProblem() {
    }

    /**
     * The file's mode as {@code ls} shows it ({@code rw-r--r--}) when its group or others may read or write it (a
     * secret's file must be the owner's alone), else empty.
     *
     * @throws UnsupportedOperationException on a file system without POSIX modes (the caller decides what that means)
     */
    public static Optional<String> openToOthers(Path file) throws IOException {
        Set<PosixFilePermission> mode = Files.getPosixFilePermissions(file);
        return mode.stream().anyMatch(p -> !p.name().startsWith("OWNER_"))
                ? Optional.of(PosixFilePermissions.toString(mode)) : Optional.empty();
    }

    /** {@code "F: no such file"}, {@code "F: permission denied"}, else {@code "F: "} and the reason the JDK gives. */
    public static String of(Path file, IOException e) {
        if (e instanceof NoSuchFileException) {
            return file + ": no such file";
        }
        if (e instanceof AccessDeniedException) {
            return file + ": permission denied";
        }
        if (e instanceof FileAlreadyExistsException) {
            return file + ": already exists";
        }
        if (e instanceof NotDirectoryException) {
            return file + ": not a directory";
        }
        if (e instanceof FileSystemException f && f.getReason() != null) {
            return file + ": " + f.getReason();
        }
        return file + ": " + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
    }
}
