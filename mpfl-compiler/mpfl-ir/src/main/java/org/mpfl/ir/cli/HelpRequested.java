package org.mpfl.ir.cli;

/**
 * {@code --help} or {@code -h} on a command line: not an error; {@link Commands#run} prints the usage
 * it carries on standard output and exits 0.
 */
public final class HelpRequested extends UsageException {
    private static final long serialVersionUID = 1L;

    public HelpRequested(String usage) {
        super(usage);
    }

    /** The command's usage text. */
    public String usage() {
        return getMessage();
    }
}
