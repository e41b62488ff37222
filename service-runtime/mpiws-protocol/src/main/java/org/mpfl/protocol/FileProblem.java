package org.mpfl.protocol;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Why a file named on a command line could not be read, in words: the JDK's {@code NoSuchFileException} and
 * {@code AccessDeniedException} carry only the path as their message, so "cannot read F: " + its message said
 * the path twice and no reason.
 */
public final class FileProblem {
    private FileProblem() {
    }

    /** {@code "F: no such file"}, {@code "F: permission denied"}, else {@code "F: "} and the reason the JDK gives. */
    public static String of(Path file, IOException e) {
        if (e instanceof NoSuchFileException) {
            return file + ": no such file";
        }
        if (e instanceof AccessDeniedException) {
            return file + ": permission denied";
        }
        if (e instanceof FileSystemException f && f.getReason() != null) {
            return file + ": " + f.getReason();
        }
        return file + ": " + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
    }
}
