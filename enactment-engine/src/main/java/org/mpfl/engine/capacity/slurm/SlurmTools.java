package org.mpfl.engine.capacity.slurm;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs Slurm's command-line tools ({@code sbatch}, {@code squeue}, {@code scancel}, {@code scontrol})
 * with a bounded wait; a tool that fails or hangs is an {@link IOException} naming it and what it said.
 */
public final class SlurmTools {
    /** How long one tool may take (slurmctld answers in well under a second when it is up). */
    public static final Duration WAIT = Duration.ofSeconds(30);
    /** What {@link #run} says of a tool it stopped after {@link #WAIT} (the request may have been carried out). */
    static final String NO_ANSWER_WITHIN = "did not answer within";

    private SlurmTools() {
    }

    /**
     * Runs a tool to its end and returns what it printed.
     *
     * @param env   more environment for it (e.g. {@code SLURM_CONF}, a secret for a job), never on its command line
     * @param stdin what it reads (a job script), or {@code null}
     */
    public static String run(List<String> cmd, Map<String, String> env, String stdin) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().putAll(env);
        Process p = pb.start();
        try {
            try (OutputStream in = p.getOutputStream()) {
                if (stdin != null) {
                    in.write(stdin.getBytes(StandardCharsets.UTF_8));
                }
            }
            if (!p.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)) {
                throw new IOException(cmd.get(0) + " " + NO_ANSWER_WITHIN + " " + WAIT.toSeconds() + " s (is slurmctld up?)");
            }
            String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (p.exitValue() != 0) {
                throw new IOException(String.join(" ", cmd.subList(0, Math.min(cmd.size(), 3))) + " failed (exit " + p.exitValue()
                        + "): " + text.strip());
            }
            return text;
        } finally {
            p.destroyForcibly();
        }
    }

    /**
     * What Slurm's tools print when slurmctld does not answer (down, restarting, failing over, overloaded): asking
     * again later may succeed. A tool that is missing, or an error slurmctld answered with, is not such a failure.
     */
    private static final java.util.regex.Pattern NO_ANSWER = java.util.regex.Pattern.compile(
            "did not answer within|Unable to contact slurm controller|Socket timed out|Connection refused|Connection timed out"
                    + "|Zero Bytes were transmitted|backup controller in standby|Resource temporarily unavailable");

    /** Whether a tool's failure (as {@link #run} says it) or slurmrestd's error says slurmctld did not answer (transient). */
    static boolean noAnswer(String said) {
        return said != null && NO_ANSWER.matcher(said).find();
    }

    /**
     * What Slurm's tools say when their request may have reached slurmctld though no answer came back: stopped after
     * {@link #WAIT}, slurmctld's reply timed out or was cut ({@code Socket timed out on send/recv operation}, {@code Zero
     * Bytes were transmitted or received}), or the tool was killed by a signal (exit above 128). Unlike "Unable to contact
     * slurm controller" or "Connection refused", which never reached it.
     */
    private static final java.util.regex.Pattern MAY_HAVE_REACHED = java.util.regex.Pattern.compile(
            NO_ANSWER_WITHIN + "|Socket timed out|Zero Bytes were transmitted|failed \\(exit (129|1[3-9]\\d|2\\d\\d)\\)");

    /** Whether a tool's failure (as {@link #run} says it) leaves open whether slurmctld carried its request out. */
    static boolean mayHaveReached(String said) {
        return said != null && MAY_HAVE_REACHED.matcher(said).find();
    }

    /** A value as one word of {@code sh} ({@code '…'}, with {@code '} written as {@code '\''}). */
    static String shellWord(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }
}
