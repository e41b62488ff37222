package org.mpfl.ir.cli;

import java.io.PrintStream;
import java.util.List;

/**
 * One sub-command of {@code mpflc}. Modules contribute commands through
 * {@code META-INF/services/org.mpfl.ir.cli.CliCommand} (the compiler: check, compile; the
 * runtime: host, bench; the engine: run, up, deploy, status, cancel), so the compiler does not
 * depend on the modules above it.
 */
public interface CliCommand {
    /** The word after {@code mpflc}. */
    String name();

    /** One line for the usage text. */
    String summary();

    /**
     * Runs the command.
     *
     * @return the process exit code (0 success, 1 failure the command reported, 2 usage error)
     */
    int run(List<String> args, PrintStream out, PrintStream err) throws Exception;
}
