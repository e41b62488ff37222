package org.mpfl.runtime.interp.kernel;

import java.io.File;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.mpfl.runtime.settings.RuntimeSettings;

/**
 * One kernel worker process of a rank (a Python interpreter running {@code mpfl_kernel.py}, or any
 * executable speaking docs/kernel-protocol.md): started with the rank, stopped with it, so that the
 * kernel's module state lives as long as a Java activity instance does. Calls are one at a time. The
 * worker leads a session of its own ({@link WorkerSession}): the processes its kernels start are stopped
 * with it, however it ends.
 */
final class KernelWorker implements AutoCloseable {
    /**
     * How long a worker that closed its channel gets to exit before its status is read (and it is stopped). A killed
     * worker has closed it as it died, and its status is there as soon as the JVM's reaper thread runs: on a loaded
     * machine that may take a while, and a status not read in time made a SIGKILL from outside (retried) a workflow
     * fault (not retried). Only a worker that closes its channel and lives on waits all of it.
     */
    static final long EXIT_WAIT_MS = 10_000;
    /** How long a worker asked to exit (or busy in a call when its rank ends) gets before it is stopped. */
    static final long STOP_WAIT_MS = 1_000;
    /** How long the last lines of a worker's output may take to arrive once it ended. */
    static final long OUTPUT_WAIT_MS = 1_000;
    /** The label of a command worker, before the command as the document wrote it. */
    static final String COMMAND_LABEL = "the command worker ";

    private final String label;
    private final Process process;
    private final WorkerSession session;
    private final WorkerLeftovers leftovers;
    private final ControlChannel channel;
    private final SharedArena arena;
    private final OutputSlots slots = new OutputSlots();
    private final OutputPump stdout;
    private final OutputPump stderr;
    private final AtomicLong logBudget;
    private final long logBytesPerCall;
    private final OutputPump.Sink log;
    private boolean broken;

    private KernelWorker(String label, WorkerSession session, WorkerLeftovers leftovers, ControlChannel channel, SharedArena arena,
                         OutputPump stdout, OutputPump stderr, AtomicLong logBudget, long logBytesPerCall, OutputPump.Sink log) {
        this.label = label;
        this.process = session.process();
        this.session = session;
        this.leftovers = leftovers;
        this.channel = channel;
        this.arena = arena;
        this.stdout = stdout;
        this.stderr = stderr;
        this.logBudget = logBudget;
        this.logBytesPerCall = logBytesPerCall;
        this.log = log;
    }

    /**
     * Starts {@code command} and waits (at most {@code startTimeoutMs}) for its {@code ready} frame.
     *
     * @param label what messages call the worker ("the python worker", "the command worker bin/heat")
     * @throws InterruptedIOException the rank was interrupted (its domain aborted) while the worker started: the
     *                                worker is stopped and its files removed, and nothing is the worker's fault
     */
    static KernelWorker start(String label, List<String> command, Map<String, String> environment, Path directory,
                              OutputPump.Sink log, long startTimeoutMs, long logBytesPerCall)
            throws KernelFailure, InterruptedIOException {
        WorkerLeftovers leftovers = WorkerLeftovers.open();
        SharedArena arena = null;
        try {
            // each made and recorded at once, unless the JVM exits (WorkerLeftovers): a Ctrl-C leaves none of them
            Path socketDirectory = WorkerLeftovers.unlessExiting(() -> leftovers.path(KernelScratch.SOCKET.create()));
            Path socketPath = leftovers.path(socketDirectory.resolve("ctl"));
            arena = WorkerLeftovers.unlessExiting(() -> leftovers.arena(SharedArena.create()));
            try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
                 Selector selector = Selector.open()) {
                server.bind(UnixDomainSocketAddress.of(socketPath));
                server.configureBlocking(false);
                server.register(selector, SelectionKey.OP_ACCEPT);
                ProcessBuilder builder = new ProcessBuilder(command).redirectInput(new File("/dev/null"));
                if (directory != null) {
                    builder.directory(directory.toFile());
                }
                builder.environment().putAll(environment);
                builder.environment().put("MPFL_KERNEL_SOCKET", socketPath.toString());
                builder.environment().put("MPFL_KERNEL_SHM", arena.file().toString());
                WorkerSession session;
                try {
                    session = WorkerLeftovers.unlessExiting(() -> leftovers.session(WorkerSession.start(builder)));
                } catch (InterruptedIOException e) {
                    throw e;
                } catch (IOException e) {
                    throw KernelFailure.workflow("cannot start " + label + ": " + rootMessage(e));
                }
                Process process = session.process();
                // whenever the worker ends (stopped, killed, crashed, killed from outside), what it started goes too
                process.onExit().thenRun(session::stop);
                AtomicLong budget = new AtomicLong(logBytesPerCall);
                OutputPump out = new OutputPump(process.getInputStream(), "info", log, budget, "mpfl-kernel-stdout");
                OutputPump err = new OutputPump(process.getErrorStream(), "warn", log, budget, "mpfl-kernel-stderr");
                long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(startTimeoutMs);
                SocketChannel accepted = null;
                while (accepted == null) {
                    accepted = server.accept();
                    if (accepted != null) {
                        break;
                    }
                    if (!process.isAlive()) {
                        session.stop();
                        String unexecutable = session.execFailure(err.tail(OUTPUT_WAIT_MS));
                        if (unexecutable != null) {
                            throw KernelFailure.workflow("cannot start " + label + ": " + unexecutable);
                        }
                        // it ran: a program that is no kernel worker (or one that failed before it connected), not one that never started
                        throw KernelFailure.workflow(label + " ended before it connected to its control channel"
                                + " ($MPFL_KERNEL_SOCKET, docs/kernel-protocol.md): " + exitStatus(process) + lastLines(err));
                    }
                    if (System.nanoTime() > deadline) {
                        throw KernelFailure.workflow(label + " did not connect within " + startTimeoutMs + " ms"
                                + " (mpfl.kernel.startTimeoutMs)" + lastLines(err));
                    }
                    selector.select(50);
                    selector.selectedKeys().clear();
                    if (Thread.currentThread().isInterrupted()) {
                        throw new InterruptedIOException("interrupted while " + label + " started");
                    }
                }
                KernelWorker worker = new KernelWorker(label, session, leftovers, new ControlChannel(accepted, process.onExit(),
                        RuntimeSettings.KERNEL_FRAME_TIMEOUT_MS.get()), arena,
                        out, err, budget, logBytesPerCall, log);
                String ready;
                try {
                    ready = worker.channel.receive(deadline);
                } catch (InterruptedIOException e) {
                    // stopped before its channel closes: a worker reading a reset channel would print a traceback
                    session.stop();
                    worker.channel.close();
                    throw e;
                } catch (ControlChannel.TimedOut e) {
                    // connected but silent: the protocol's first frame is missing (docs/kernel-protocol.md, "Start")
                    worker.broken = true;
                    worker.close();
                    throw KernelFailure.workflow(label + " connected but sent no 'ready 1' frame within " + startTimeoutMs
                            + " ms (mpfl.kernel.startTimeoutMs)" + lastLines(err));
                }
                if (!ready.startsWith("ready 1")) {
                    worker.close();
                    throw KernelFailure.workflow(label + " speaks another protocol: its first frame is '" + firstLine(ready)
                            + "', expected 'ready 1'");
                }
                return worker;
            }
        } catch (InterruptedIOException e) {
            abandon(arena, leftovers);
            throw e;
        } catch (IOException e) {
            abandon(arena, leftovers);
            throw KernelFailure.workflow("cannot start " + label + ": " + rootMessage(e));
        } catch (KernelFailure e) {
            abandon(arena, leftovers);
            throw e;
        }
    }

    /** A worker that did not start: its process killed, its files removed. */
    private static void abandon(SharedArena arena, WorkerLeftovers leftovers) {
        if (arena != null) {
            arena.close();
        }
        leftovers.removeNow();
    }

    SharedArena arena() {
        return arena;
    }

    OutputSlots slots() {
        return slots;
    }

    String label() {
        return label;
    }

    /** The command as the document wrote it ({@code bin/heat}) for a command worker, else the label. */
    String command() {
        return label.startsWith(COMMAND_LABEL) ? label.substring(COMMAND_LABEL.length()) : label;
    }

    /** Sends one request and returns the worker's answer frame; the worker stays usable only if this returns. */
    synchronized String exchange(String request, long deadlineNanos) throws KernelFailure, InterruptedIOException {
        return exchange(request, deadlineNanos, () -> { });
    }

    /**
     * As {@link #exchange(String, long)}, running {@code whileWaiting} on this thread between sending the
     * request and waiting for the answer: work the rank can do while the worker computes.
     */
    synchronized String exchange(String request, long deadlineNanos, Runnable whileWaiting)
            throws KernelFailure, InterruptedIOException {
        if (broken) {
            throw KernelFailure.workflow(label + " is not usable after an earlier failure");
        }
        long dropped = stdout.takeDropped() + stderr.takeDropped();
        if (dropped > 0) {
            log.line("warn", dropped + " lines of kernel output not shown (more than " + logBytesPerCall
                    + " bytes in one call; mpfl.kernel.logBytesPerCall)");
        }
        logBudget.set(logBytesPerCall);
        stdout.callStarts();
        stderr.callStarts();
        try {
            channel.send(request);
            whileWaiting.run();
            String answer = receive(deadlineNanos);
            // a line the call printed without its newline shows now, not when the worker ends
            stdout.callEnded();
            stderr.callEnded();
            return answer;
        } catch (InterruptedIOException e) {
            broken = true;
            throw e;
        } catch (IOException e) {
            // end of file, "Connection reset" or "Broken pipe": the worker's end of the socket is gone
            broken = true;
            throw died(e);
        }
    }

    private String receive(long deadlineNanos) throws KernelFailure, IOException {
        try {
            return channel.receive(deadlineNanos);
        } catch (ControlChannel.TimedOut e) {
            broken = true;
            throw KernelFailure.workflow(label + " did not answer in time" + lastLines(stderr));
        }
    }

    /** The failure of a worker that closed its channel: its exit status or signal, with its last stderr lines. */
    private KernelFailure died(IOException cause) {
        boolean exited;
        try {
            exited = process.waitFor(EXIT_WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            // the domain aborted while this rank waited (another rank's worker failed first): the cause stays this one
            Thread.currentThread().interrupt();
            exited = false;
        }
        if (!exited) {
            session.stop();
            return KernelFailure.workflow(label + ": " + rootMessage(cause) + " (the worker was stopped)" + lastLines(stderr));
        }
        // what the worker started goes with it, and with them their ends of its stdout and stderr
        session.stop();
        int status = process.exitValue();
        String signal = Signals.name(status);
        if ("SIGKILL".equals(signal)) {
            return new KernelFailure(KernelFailure.Kind.LOST, label + " was killed by signal 9 (SIGKILL) from outside"
                    + " (the OOM killer, or kill -9)");
        }
        return KernelFailure.workflow(label + " " + exitStatus(process) + lastLines(stderr));
    }

    private static String exitStatus(Process process) {
        int status = process.exitValue();
        String signal = Signals.name(status);
        return signal != null ? "was killed by signal " + (status - 128) + " (" + signal + ")" : "exited with status " + status;
    }

    private static String lastLines(OutputPump err) {
        List<String> tail = err.tail(OUTPUT_WAIT_MS);
        return tail.isEmpty() ? "" : "; its last output:\n" + String.join("\n", tail);
    }

    private static String firstLine(String text) {
        int newline = text.indexOf('\n');
        return newline < 0 ? text : text.substring(0, newline);
    }

    static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getMessage() == null ? root.toString() : root.getMessage();
    }

    @Override
    public synchronized void close() {
        if (process.isAlive() && !broken) {
            try {
                channel.send("exit");
            } catch (IOException e) {
                // it is stopped below either way
            }
        }
        channel.close();
        try {
            process.waitFor(STOP_WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        // the worker if it did not exit, and every process it started (they would hold its pipes open)
        session.stop();
        // the worker's last lines reach the log before the rank ends: a C program's stdout into a pipe is
        // block-buffered, so everything it printed may come only now, at its exit (bounded: a process that
        // left the worker's session and kept the pipe open must not hold the rank)
        stdout.drain(OUTPUT_WAIT_MS);
        stderr.drain(OUTPUT_WAIT_MS);
        long dropped = stdout.takeDropped() + stderr.takeDropped();
        if (dropped > 0) {
            log.line("warn", dropped + " lines of kernel output not shown (mpfl.kernel.logBytesPerCall)");
        }
        arena.close();
        leftovers.removeNow();
    }

    /** Kills the worker and every process it started at once (the rank is aborting). */
    void kill() {
        session.stop();
    }

    /** Names of the signals a worker commonly dies of (Java reports a death by signal N as status 128 + N). */
    static final class Signals {
        private static final Map<Integer, String> NAMES = Map.ofEntries(Map.entry(1, "SIGHUP"), Map.entry(2, "SIGINT"),
                Map.entry(3, "SIGQUIT"), Map.entry(4, "SIGILL"), Map.entry(6, "SIGABRT"), Map.entry(7, "SIGBUS"),
                Map.entry(8, "SIGFPE"), Map.entry(9, "SIGKILL"), Map.entry(11, "SIGSEGV"), Map.entry(13, "SIGPIPE"),
                Map.entry(15, "SIGTERM"));

        private Signals() {
        }

        static String name(int status) {
            return status > 128 ? NAMES.get(status - 128) : null;
        }
    }

    /** For messages: the arguments as a shell would show them. */
    static String show(List<String> command) {
        List<String> words = new ArrayList<>();
        command.forEach(w -> words.add(w.contains(" ") ? "'" + w + "'" : w));
        return String.join(" ", words);
    }
}
