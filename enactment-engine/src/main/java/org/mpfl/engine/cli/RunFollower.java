package org.mpfl.engine.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.mpfl.ir.cli.ArgumentSpec;
import org.mpfl.ir.cli.Arguments;

/**
 * Follows a run by polling {@code GET /api/runs/{id}} until it ends, drawing a progress bar on
 * stderr (redrawn in place on a terminal, one line per state change otherwise). Interrupting the
 * command line (Ctrl-C, a hang-up, SIGTERM) cancels the run ({@code mpflc run --detach} does not follow).
 * Waits for an engine that stops answering (a restart) up to {@value #UNREACHABLE_LIMIT_MS} ms, saying
 * so, and cancels the run when {@code --timeout} seconds pass.
 */
final class RunFollower {
    private static final long POLL_MS = 200;
    /**
     * Polls come every {@value #FIRST_POLL_MS} ms during a run's first {@value #FIRST_POLLS_FOR_MS} ms: a
     * short run (the README's first one takes half a second) is reported as soon as it ends, not up to a
     * full interval later; after that a long one is polled at the usual rate.
     */
    private static final long FIRST_POLL_MS = 50;
    private static final long FIRST_POLLS_FOR_MS = 3_000;
    /**
     * How long an engine may not answer before the follower gives up: longer than the hosts' default engine-loss
     * grace (120 s, how long ranks go on without their engine) plus an engine's start on a loaded machine, so that
     * a restarted engine is waited for; the run itself does not depend on this command.
     */
    private static final long UNREACHABLE_LIMIT_MS = 180_000;
    /** Looks at an ended run while some of its ranks have not ended yet ({@link #settle}): 2 s in all. */
    private static final int SETTLE_LOOKS = 10;

    private RunFollower() {
    }

    /** {@code RUN --engine URL [--follow] [--json]}: the options of a command that shows or follows one run. */
    static ArgumentSpec runOptions(ArgumentSpec spec) {
        return spec
                .positional("RUN", "the run's id")
                .with(EngineOptions::client)
                .flag("--follow", "follow the run like mpflc run does, to its end")
                .flag("--json", "print the run as one JSON object");
    }

    /**
     * Follows the run {@code RUN} names, drawing progress on {@code err} unless {@code --json} asks for JSON only.
     *
     * @param holdsRun whether stopping this command cancels the run: yes for the command that started it (resume),
     *                 no for one that only watches it ({@code status --follow}: stopping a watch must not end the run)
     */
    static JsonNode follow(EngineClient client, Arguments args, PrintStream err, boolean holdsRun) throws Exception {
        return follow(client, EngineOptions.runId(args), 0, args.flag("--json") ? null : err, holdsRun, true);
    }

    /** What is followed: a run of an engine, or one whose ranks run in this JVM. */
    interface Source {
        /** The run as {@code GET /api/runs/{id}} shows it. */
        JsonNode get() throws IOException, InterruptedException;

        /** Cancels the run, saying why (the run's error then reads {@code cancelled: REASON}). */
        void cancel(String reason) throws IOException, InterruptedException;

        /** Waits until the next look, or less when the run changed meanwhile. */
        void pause(long ms) throws InterruptedException;
    }

    /**
     * @param holdsRun whether stopping this command (Ctrl-C, hang-up, SIGTERM) cancels the run
     * @param recorded the engine outlives this command and keeps the run's record, where {@code mpflc logs} reads every line
     */
    static JsonNode follow(EngineClient client, String id, int timeoutS, PrintStream progress, boolean holdsRun, boolean recorded)
            throws Exception {
        return follow(source(client, id), id, timeoutS, progress, holdsRun, recorded);
    }

    /** Run {@code id} of the engine {@code client} speaks to, as a {@link Source}. */
    static Source source(EngineClient client, String id) {
        return new Source() {
            @Override
            public JsonNode get() throws IOException, InterruptedException {
                return client.get("/api/runs/" + id);
            }

            @Override
            public void cancel(String reason) throws IOException, InterruptedException {
                client.post("/api/runs/" + id + "/cancel", java.util.Map.of("reason", reason));
            }

            @Override
            public void pause(long ms) throws InterruptedException {
                Thread.sleep(ms);
            }
        };
    }

    /** Prints a followed run's end ({@code RunCommand.report}) and gives the command's exit code. */
    @FunctionalInterface
    interface Report {
        int print(JsonNode run);
    }

    /** {@link #followAndReport(Source, String, int, PrintStream, boolean, Report, CompletableFuture, Runnable)}, for a run nothing else waits for. */
    static int followAndReport(Source source, String id, int timeoutS, PrintStream progress, boolean recorded, Report report)
            throws Exception {
        return followAndReport(source, id, timeoutS, progress, recorded, report, new CompletableFuture<>(), () -> { });
    }

    /**
     * Follows run {@code id} to its end and prints it with {@code report}, holding the run: stopping this command
     * (Ctrl-C, hang-up, SIGTERM) cancels it, and the JVM's exit then waits up to {@value #LAST_PRINT_WAIT_MS} ms for
     * {@code report}. Without that wait the exit raced the print of the cancelled run (the follower sees the end the
     * cancel made only after it), and a stopped {@code run --local} often ended without its last line, or with
     * {@code --json} without any output.
     *
     * @param reported completed once the run is printed, or following it failed: what else the exit must let finish
     *                 first waits for it (the engine of {@code run --local --hosts N}, {@code LocalCluster.holdExitUntil})
     * @param held     runs once stopping the command cancels the run (its hook is in place): what watched the command
     *                 until then ({@link Submission}) may let go without a moment when a stop would go unsaid
     */
    static int followAndReport(Source source, String id, int timeoutS, PrintStream progress, boolean recorded, Report report,
                               CompletableFuture<Void> reported, Runnable held) throws Exception {
        Thread cancelOnExit = cancelOnExit(source, reported);
        Runtime.getRuntime().addShutdownHook(cancelOnExit);
        held.run();
        try {
            return report.print(follow(source, id, timeoutS, progress, false, recorded));
        } finally {
            reported.complete(null); // also when following failed: the exit has nothing more to wait for
            removeHook(cancelOnExit);
        }
    }

    /**
     * How long the exit of a stopped command waits for the print of the run it cancelled ({@link #followAndReport}):
     * the follower looks again at once (an in-process run) or within a poll.
     */
    private static final long LAST_PRINT_WAIT_MS = 5_000;

    /** The shutdown hook that cancels the run; then waits (bounded) for {@code printed}, unless {@code null}. */
    private static Thread cancelOnExit(Source source, CompletableFuture<Void> printed) {
        return new Thread(() -> {
            try {
                source.cancel("mpflc was stopped while it followed the run");
            } catch (Exception ignored) {
                // the engine may be gone; nothing more to do on the way out
            }
            if (printed != null) {
                try {
                    printed.get(LAST_PRINT_WAIT_MS, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (ExecutionException | TimeoutException e) {
                    // not printed within the bound: the exit goes on without it
                }
            }
        }, "mpflc-cancel-on-exit");
    }

    private static void removeHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // shutting down: the hook runs and cancels, which is what an interrupted command wants
        }
    }

    /**
     * Follows run {@code id} of {@code source} to its end, as {@link #follow(EngineClient, String, int, PrintStream, boolean, boolean)};
     * {@code holdsRun}: stopping this command (Ctrl-C, hang-up, SIGTERM) cancels the run.
     */
    static JsonNode follow(Source source, String id, int timeoutS, PrintStream progress, boolean holdsRun, boolean recorded)
            throws Exception {
        Thread cancelOnExit = cancelOnExit(source, null);
        if (holdsRun) {
            Runtime.getRuntime().addShutdownHook(cancelOnExit);
        }
        boolean tty = System.console() != null;
        long start = System.currentTimeMillis();
        long lastReached = start;
        String lastLine = "";
        String lastState = "";
        String lastQueue = "";
        boolean timedOut = false;
        boolean waitingSaid = false;
        int lastAttempts = 0;
        RunLogLines logLines = new RunLogLines(recorded);
        try {
            for (;;) {
                JsonNode run;
                try {
                    run = source.get();
                    lastReached = System.currentTimeMillis();
                } catch (EngineClient.EngineException | TokenCache.LoginEnded e) {
                    // the engine's answer, or a login only mpflc login mends: waiting changes neither
                    throw e;
                } catch (IOException e) {
                    if (System.currentTimeMillis() - lastReached > UNREACHABLE_LIMIT_MS) {
                        throw new IOException("lost the engine while following run " + id + ": " + e.getMessage()
                                + " (no answer for " + UNREACHABLE_LIMIT_MS / 1000 + " s); the run may go on: once the engine"
                                + " is back, mpflc status " + id + " --follow", e);
                    }
                    if (!waitingSaid && progress != null) {
                        waitingSaid = true;
                        progress.println((tty && !lastLine.isEmpty() ? "\n" : "") + "mpflc run: the engine does not answer ("
                                + e.getMessage() + "); waiting up to " + UNREACHABLE_LIMIT_MS / 1000 + " s for it (a restart);"
                                + " the run goes on without it");
                        lastLine = "";
                    }
                    source.pause(POLL_MS * 5);
                    continue;
                }
                if (waitingSaid && progress != null) {
                    progress.println("mpflc run: the engine answers again");
                }
                waitingSaid = false;
                String state = run.path("state").asText();
                if (progress != null) {
                    List<String> logs = logLines.since(run);
                    if (!logs.isEmpty()) {
                        if (tty && !lastLine.isEmpty()) {
                            progress.print("\r\033[K"); // the log lines go where the bar was; it is drawn again below them
                            lastLine = "";
                        }
                        logs.forEach(progress::println);
                    }
                    String line = bar(run, System.currentTimeMillis() - start);
                    if (tty && !line.equals(lastLine)) {
                        progress.print("\r" + line);
                        progress.flush();
                    } else if (!tty && (!state.equals(lastState) || !queuePlace(run).equals(lastQueue))) {
                        // a line per state change, and per move in the queue while it waits
                        progress.println(line);
                    }
                    lastLine = line;
                    lastQueue = queuePlace(run);
                }
                lastState = state;
                int attempts = run.path("attempts").asInt(1);
                if (progress != null && lastAttempts > 0 && attempts > lastAttempts && run.path("attemptLog").size() > 0) {
                    // a restart or a resume: say why, where the bar alone would only drop back to 0 % QUEUED
                    JsonNode latest = run.path("attemptLog").get(run.path("attemptLog").size() - 1);
                    progress.println((tty && !lastLine.isEmpty() ? "\n" : "") + "mpflc run: " + attemptLine(latest));
                    lastLine = "";
                }
                lastAttempts = attempts;
                if (state.equals("SUCCEEDED") || state.equals("FAILED") || state.equals("CANCELLED")) {
                    if (progress != null && tty) {
                        progress.println();
                    }
                    return progress == null ? run : settle(source, run, logLines, progress);
                }
                if (!timedOut && timeoutS > 0 && System.currentTimeMillis() - start > timeoutS * 1000L) {
                    timedOut = true;
                    if (progress != null) {
                        progress.println((tty ? "\n" : "") + "mpflc run: --timeout " + timeoutS + " s reached; cancelling run " + id);
                    }
                    source.cancel("--timeout " + timeoutS + " s passed");
                }
                source.pause(System.currentTimeMillis() - start < FIRST_POLLS_FOR_MS ? FIRST_POLL_MS : POLL_MS);
            }
        } finally {
            if (holdsRun) {
                removeHook(cancelOnExit);
            }
        }
    }

    /**
     * An ended run's last log lines: a run ends when its first rank fails, while the others may still be posting what
     * they logged before they stopped (a host sends a rank's events in batches). Looks again, up to
     * {@value #SETTLE_LOOKS} times {@value #POLL_MS} ms, until every rank has ended too, printing the lines that came.
     */
    private static JsonNode settle(Source source, JsonNode run, RunLogLines logLines, PrintStream progress) throws Exception {
        for (int look = 0; look < SETTLE_LOOKS && !everyRankEnded(run); look++) {
            source.pause(POLL_MS);
            JsonNode later;
            try {
                later = source.get();
            } catch (IOException e) {
                return run; // the run has ended; its last lines are in mpflc logs
            }
            if (!later.path("state").asText().equals(run.path("state").asText())) {
                return run; // resumed meanwhile: this command reports the end it saw
            }
            run = later;
            logLines.since(run).forEach(progress::println);
        }
        return run;
    }

    private static boolean everyRankEnded(JsonNode run) {
        for (JsonNode r : run.path("ranks")) {
            String state = r.path("state").asText();
            if (state.equals("PENDING") || state.equals("RUNNING")) {
                return false;
            }
        }
        return true;
    }

    /**
     * The progress line of {@code run}: the run's own time where its record gives it ({@code elapsedMs}: a run followed
     * with {@code status --follow} started before this command), else {@code followedMs}, the time this command followed it.
     */
    static String bar(JsonNode run, long followedMs) {
        long elapsedMs = run.path("elapsedMs").isNumber() ? run.path("elapsedMs").asLong() : followedMs;
        double p = run.path("progress").asDouble();
        int width = 30;
        int filled = (int) Math.round(Math.max(0, Math.min(1, p)) * width);
        int size = run.path("ranks").size();
        long done = 0;
        for (JsonNode r : run.path("ranks")) {
            if (r.path("state").asText().equals("DONE")) {
                done++;
            }
        }
        return String.format("[%s%s] %3d%%%s  %-9s %d/%d ranks done  %.1f s  run %s%s", "#".repeat(filled), "-".repeat(width - filled),
                Math.round(p * 100), progressSource(run), run.path("state").asText(), done, size, elapsedMs / 1000.0,
                run.path("id").asText(), queuePlace(run));
    }

    /**
     * {@code " (as at checkpoint 3)"} while a resumed run's progress is the checkpoint's it resumed from, not yet its
     * ranks' own reports (the console says the same); empty otherwise.
     */
    static String progressSource(JsonNode run) {
        JsonNode k = run.path("progressFromCheckpoint");
        return k.isNumber() ? " (as at checkpoint " + k.asLong() + ")" : "";
    }

    /** One attempt of {@code attemptLog}: {@code attempt 2: restart after: host h1 lost … (from checkpoint 6)}. */
    static String attemptLine(JsonNode attempt) {
        String from = attempt.hasNonNull("resumedFrom") ? " (from checkpoint " + attempt.get("resumedFrom").asInt() + ")"
                : attempt.path("attempt").asInt() > 1 ? " (from the start)" : "";
        return "attempt " + attempt.path("attempt").asInt() + ": " + attempt.path("cause").asText("?") + from
                + (attempt.hasNonNull("note") ? "; " + attempt.get("note").asText() : "");
    }

    /** A QUEUED run's place: {@code "  queue position 2: needs …"}; empty for a run that does not wait. */
    static String queuePlace(JsonNode run) {
        JsonNode q = run.path("queue");
        if (!q.isObject()) {
            return "";
        }
        return "  queue position " + q.path("position").asInt() + ": " + q.path("reason").asText();
    }
}
