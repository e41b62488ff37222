package org.mpfl.engine.cli;

import java.io.PrintStream;
import java.util.concurrent.CompletableFuture;

/**
 * What {@code mpflc run} says when it is stopped (Ctrl-C, a hang-up, SIGTERM) before it follows its run: while its
 * document compiles, its local engine starts or its run is submitted. A shutdown hook of its own, from the command's
 * start until following takes over ({@link RunFollower#followAndReport}, which then cancels the run and prints its
 * end). Before it, such a stop printed nothing, and the user could not tell whether a run had been started.
 *
 * <p>The hook says one of: no run was started (and none will be: a submit after the stop is refused); the run was
 * being submitted (the engine may have taken it); or which run was started, then cancels it as following would
 * (with {@code --detach}: that it goes on).
 */
final class Submission implements AutoCloseable {
    private final PrintStream err;
    private final boolean local;
    private final boolean holdsRun;
    private final Thread atExit;
    private final CompletableFuture<Void> said = new CompletableFuture<>();
    private boolean stopped;
    private EngineClient client;
    private String id;

    private Submission(PrintStream err, boolean local, boolean holdsRun) {
        this.err = err;
        this.local = local;
        this.holdsRun = holdsRun;
        this.atExit = new Thread(this::stopped, "mpflc-run-stopped-before-following");
    }

    /**
     * Watches from now on ({@code local}: the engine is this command's own; {@code holdsRun}: stopping the command
     * cancels the run, as it does unless {@code --detach}).
     */
    static Submission watch(PrintStream err, boolean local, boolean holdsRun) {
        Submission s = new Submission(err, local, holdsRun);
        Runtime.getRuntime().addShutdownHook(s.atExit);
        return s;
    }

    /**
     * The run's start request is about to go to {@code client}'s engine.
     *
     * @throws java.io.IOException the command was stopped: nothing is sent, so that no run starts after "no run was started"
     */
    synchronized void sending(EngineClient client) throws java.io.IOException {
        if (stopped) {
            throw new java.io.IOException("mpflc run was stopped before it submitted the run");
        }
        this.client = client;
    }

    /** The engine took the run as {@code id}. */
    synchronized void submitted(String id) {
        this.id = id;
    }

    /** Completes once the hook said what it had to (or was removed): what else the exit stops waits for it. */
    CompletableFuture<Void> said() {
        return said;
    }

    /** Following took over, or the command ends: the exit says nothing more from here. */
    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(atExit);
            said.complete(null);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs (or ran) and completes said itself
        }
    }

    /** The hook: says where the command was stopped; cancels a run it started and held. */
    void stopped() {
        String runId;
        EngineClient engine;
        synchronized (this) {
            stopped = true;
            runId = id;
            engine = client;
        }
        try {
            err.println(whatHappened(runId, engine));
            if (runId != null && holdsRun) {
                try {
                    RunFollower.source(engine, runId).cancel("mpflc was stopped before it followed the run");
                } catch (Exception e) {
                    err.println("mpflc run: could not cancel run " + runId + ": " + e.getMessage());
                }
            }
        } finally {
            said.complete(null);
        }
    }

    private String whatHappened(String runId, EngineClient engine) {
        if (runId != null && holdsRun) {
            return "mpflc run: stopped before following run " + runId + "; cancelling it";
        }
        if (runId != null) {
            return "mpflc run: stopped; run " + runId + " was started and goes on: mpflc status " + runId + " --follow --engine "
                    + engine.url();
        }
        if (engine != null) {
            return local ? "mpflc run: stopped while submitting the run to the local engine, which ends with this command"
                    : "mpflc run: stopped while submitting the run: the engine may have started it (mpflc runs --engine "
                    + engine.url() + " lists the runs)";
        }
        return "mpflc run: stopped before the run was submitted: no run was started";
    }
}
