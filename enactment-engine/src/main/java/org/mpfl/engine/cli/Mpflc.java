package org.mpfl.engine.cli;

import java.io.PrintStream;
import java.util.List;
import org.mpfl.ir.cli.Commands;

/** The {@code mpflc} process: runs one command line ({@link Commands#run}) and exits with its code. */
public final class Mpflc {
    private Mpflc() {
    }

    public static void main(String[] args) {
        int code = run(List.of(args));
        System.out.flush();
        System.err.flush();
        endHttpClientSelectors(thread -> true);
        System.exit(code);
    }

    /**
     * Runs one command line with this process's standard streams. Standard output is the command's own: its results
     * (a run's outputs, its one {@code --json} object, a graph). Whatever else in this JVM writes to {@code System.out}
     * while the command runs — a library's, or a thread a Java kernel started in the ranks of {@code run --local}, which
     * run in this JVM — goes to standard error instead of into the results. (What a Java kernel prints during its call
     * is its rank's log, as a Python kernel's {@code print} is: JavaKernelOutput.)
     */
    static int run(List<String> args) {
        PrintStream results = System.out;
        System.setOut(System.err);
        try {
            return Commands.run(args, results, System.err);
        } finally {
            System.setOut(results);
        }
    }

    /**
     * Ends the selector threads of the JDK HTTP clients the command used, once it is done (a JDK 17
     * {@code HttpClient} cannot be closed): each waits in native code (epoll), and HotSpot's exit waits
     * up to 300 ms for threads in native code — after every command that spoke HTTP, e.g. the README's
     * {@code run --local}. An interrupt ends such a thread (it closes its client's idle connections).
     * Found by the JDK's thread name: where that differs, only the 300 ms are not saved.
     *
     * @param which the selector threads to end; the process ends all of them, a test in a shared JVM
     *              only its own (ending another test's client's selector leaves that client's requests
     *              hanging past their timeouts, which the selector enforces)
     */
    static void endHttpClientSelectors(java.util.function.Predicate<Thread> which) {
        ThreadGroup root = Thread.currentThread().getThreadGroup();
        while (root.getParent() != null) {
            root = root.getParent();
        }
        Thread[] threads = new Thread[root.activeCount() + 16];
        int n = root.enumerate(threads, true);
        for (int i = 0; i < n; i++) {
            if (SELECTOR_THREAD.matcher(threads[i].getName()).matches() && which.test(threads[i])) {
                threads[i].interrupt();
            }
        }
    }

    private static final java.util.regex.Pattern SELECTOR_THREAD = java.util.regex.Pattern.compile("HttpClient-\\d+-SelectorManager");

}
