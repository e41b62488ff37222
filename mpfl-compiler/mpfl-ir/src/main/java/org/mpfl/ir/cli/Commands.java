package org.mpfl.ir.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;

/**
 * The {@code mpflc} command table: finds the sub-command among the {@link CliCommand}s on the class path
 * and runs it; never prints a stack trace for bad input. The process entry point is the engine's
 * {@code org.mpfl.engine.cli.Mpflc}; tests of every module run command lines through {@link #run} in their JVM.
 */
public final class Commands {
    private Commands() {
    }

    /** Runs one command line; returns the exit code. */
    public static int run(List<String> args, PrintStream out, PrintStream err) {
        List<CliCommand> commands = new ArrayList<>();
        ServiceLoader.load(CliCommand.class).forEach(commands::add);
        return run(commands, args, out, err);
    }

    /** Runs one command line with these commands (tests give their own). */
    static int run(List<CliCommand> given, List<String> args, PrintStream out, PrintStream err) {
        List<CliCommand> commands = new ArrayList<>(given);
        commands.sort(Comparator.comparing(CliCommand::name));
        if (args.isEmpty() || args.get(0).equals("--help") || args.get(0).equals("-h") || args.get(0).equals("help")) {
            usage(commands, args.isEmpty() ? err : out);
            return args.isEmpty() ? 2 : 0;
        }
        String name = args.get(0);
        for (CliCommand c : commands) {
            if (c.name().equals(name)) {
                try {
                    return c.run(args.subList(1, args.size()), out, err);
                } catch (HelpRequested e) {
                    out.print(e.usage());
                    return 0;
                } catch (UsageException e) {
                    err.println("mpflc " + name + ": " + e.getMessage());
                    return 2;
                } catch (Exception e) {
                    err.println("mpflc " + name + ": " + (e.getMessage() == null ? e.toString() : e.getMessage()));
                    if (CliSettings.DEBUG.given().isPresent()) {
                        e.printStackTrace(err);
                    }
                    return 1;
                }
            }
        }
        err.println("mpflc: unknown command '" + name + "'");
        usage(commands, err);
        return 2;
    }

    private static void usage(List<CliCommand> commands, PrintStream to) {
        to.println("usage: mpflc COMMAND [ARGS]");
        for (CliCommand c : commands) {
            to.printf("  %-10s %s%n", c.name(), c.summary());
        }
        to.println("'mpflc COMMAND --help' describes a command's options");
    }
}
