package org.mpfl.ir.cli;

import java.io.PrintStream;
import java.nio.file.FileSystemException;
import java.nio.file.Path;
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
        ServiceLoader<CliCommand> loader = ServiceLoader.load(CliCommand.class);
        if (!args.isEmpty()) {
            // the command named after its class ('run': RunCommand) is created alone: creating every command on
            // the class path initialises them all (the relay's JSON mapper, the host's options), a tenth of a
            // second of CPU of the README's first run; any other command line gets the whole table. The providers
            // are read lazily, jar by jar in class-path order: 'run' is found in the engine's jar, first on
            // bin/mpflc's class path, without opening the hundred library jars after it (~0.05 s)
            String conventional = className(args.get(0));
            for (java.util.Iterator<ServiceLoader.Provider<CliCommand>> it = loader.stream().iterator(); it.hasNext(); ) {
                ServiceLoader.Provider<CliCommand> p = it.next();
                if (p.type().getSimpleName().equals(conventional)) {
                    CliCommand c = p.get();
                    if (c.name().equals(args.get(0))) {
                        return run(List.of(c), args, out, err);
                    }
                }
            }
        }
        List<CliCommand> commands = new ArrayList<>();
        loader.forEach(commands::add);
        return run(commands, args, out, err);
    }

    /** {@code host-token} → {@code HostTokenCommand}: the class name a command's name suggests. */
    static String className(String command) {
        StringBuilder b = new StringBuilder();
        for (String part : command.split("-")) {
            if (!part.isEmpty()) {
                b.append(Character.toUpperCase(part.charAt(0))).append(part.substring(1));
            }
        }
        return b.append("Command").toString();
    }

    /**
     * What a failed command says: the exception's message; for a file the command could not read or write, the file and
     * why ({@link FileProblem}), since the JDK's message of a missing or forbidden file is its path alone
     * ({@code mpflc new python /proc/x} said {@code mpflc new: /proc/x}).
     */
    static String message(Exception e) {
        if (e instanceof FileSystemException f && f.getFile() != null && f.getReason() == null && f.getOtherFile() == null) {
            return FileProblem.of(Path.of(f.getFile()), f);
        }
        return e.getMessage() == null ? e.toString() : e.getMessage();
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
                    err.println("mpflc " + name + ": " + message(e));
                    if (CliSettings.DEBUG.given().isPresent()) {
                        e.printStackTrace(err);
                    }
                    return 1;
                }
            }
        }
        err.println("mpflc: unknown command '" + name + "'"
                + org.mpfl.ir.spelling.Suggestions.didYouMean(name, commands.stream().map(CliCommand::name).toList()));
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
