package org.mpfl.ir.cli;

/** Wrong words on the command line: reported as {@code mpflc CMD: message}, exit code 2. */
public class UsageException extends Exception {
    private static final long serialVersionUID = 1L;

    public UsageException(String message) {
        super(message);
    }
}
