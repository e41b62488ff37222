package org.mpfl.compiler.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;

/** The {@code mpflc} entry point: finds the sub-command and runs it; never prints a stack trace for bad input. */
public final class Mpflc {
    private Mpflc() {
    }

    public static void main(String[] args) {
        int code = run(List.of(args), System.out, System.err);
        System.out.flush();
        System.err.flush();
        endHttpClientSelectors();
        System.exit(code);
    }

    /**
     * Ends the selector threads of the JDK HTTP clients the command used, once it is done (a JDK 17
     * {@code HttpClient} cannot be closed): each waits in native code (epoll), and HotSpot's exit waits
     * up to 300 ms for threads in native code — after every command that spoke HTTP, e.g. the README's
     * {@code run --local}. An interrupt ends such a thread (it closes its client's idle connections).
     * Found by the JDK's thread name: where that differs, only the 300 ms are not saved.
     */
    static void endHttpClientSelectors() {
        ThreadGroup root = Thread.currentThread().getThreadGroup();
        while (root.getParent() != null) {
            root = root.getParent();
        }
        Thread[] threads = new Thread[root.activeCount() + 16];
        int n = root.enumerate(threads, true);
        for (int i = 0; i < n; i++) {
            if (SELECTOR_THREAD.matcher(threads[i].getName()).matches()) {
                threads[i].interrupt();
            }
        }
    }

    private static final java.util.regex.Pattern SELECTOR_THREAD = java.util.regex.Pattern.compile("HttpClient-\\d+-SelectorManager");

    /** Runs one command line; returns the exit code. */
    public static int run(List<String> args, PrintStream out, PrintStream err) {
        List<CliCommand> commands = new ArrayList<>();
        ServiceLoader.load(CliCommand.class).forEach(commands::add);
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
                } catch (UsageException e) {
                    err.println("mpflc " + name + ": " + e.getMessage());
                    return 2;
                } catch (Exception e) {
                    err.println("mpflc " + name + ": " + (e.getMessage() == null ? e.toString() : e.getMessage()));
                    if (System.getenv("MPFL_DEBUG") != null) {
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
    }
}
