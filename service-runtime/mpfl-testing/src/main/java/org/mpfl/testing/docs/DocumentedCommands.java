package org.mpfl.testing.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The commands of a Markdown page (the tutorial, a README) run as a reader types them: its fenced {@code sh} blocks,
 * run by bash from a directory of the source tree, checked against the {@code # outputs: …} comments they carry. The
 * page is the test's script, so it cannot drift from what is run.
 */
public final class DocumentedCommands {
    private static final long SCRIPT_BOUND_SECONDS = 600;
    private static final Pattern SH_BLOCK = Pattern.compile("(?s)```sh\\n(.*?)```");
    private static final Pattern OUTPUTS = Pattern.compile("# outputs: (.*)$", Pattern.MULTILINE);

    private DocumentedCommands() {
    }

    /** The root of the MPFL source tree this test runs in (where {@code bin/mpflc} and {@code docs/tutorial.md} are). */
    public static Path root() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("bin/mpflc")) && Files.isRegularFile(p.resolve("docs/tutorial.md"))) {
                return p;
            }
        }
        throw new IllegalStateException("not inside the MPFL source tree: " + Path.of("").toAbsolutePath());
    }

    /** What a finished script printed (stdout and stderr together) and its exit code. */
    public record Result(int exit, String output) {
    }

    /** Runs a bash script ({@code set -e}) in {@code dir}, bounded; the process tree is killed if the bound passes. */
    public static Result bash(String script, Path dir, Map<String, String> env) throws Exception {
        return run(List.of("bash", "-e", "-c", script), dir, env);
    }

    /**
     * Runs {@code command} in {@code dir} with {@code env} added, bounded (10 minutes). {@code bin/mpflc}'s temporary files
     * (and its hosts') go to this test JVM's own directory, removed when it ends; a benchmarks jar left by an earlier
     * build is not offered (the engine's own commands only).
     */
    public static Result run(List<String> command, Path dir, Map<String, String> env) throws Exception {
        Path log = Files.createTempFile("documented-commands-", ".log");
        try {
            ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                    .redirectOutput(log.toFile());
            pb.environment().put("MPFL_NO_BENCH", "1");
            pb.environment().put("TMPDIR", System.getProperty("java.io.tmpdir"));
            pb.environment().putAll(env);
            Process p = pb.start();
            p.getOutputStream().close();
            if (!p.waitFor(SCRIPT_BOUND_SECONDS, TimeUnit.SECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
                throw new AssertionError(command + " still running after " + SCRIPT_BOUND_SECONDS + " s:\n" + Files.readString(log));
            }
            return new Result(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(log);
        }
    }

    /** The fenced {@code sh} blocks of a Markdown text. */
    public static List<String> shBlocks(String markdown) {
        List<String> blocks = new ArrayList<>();
        Matcher m = SH_BLOCK.matcher(markdown);
        while (m.find()) {
            blocks.add(m.group(1));
        }
        return blocks;
    }

    /** The text of a Markdown section from its heading line to the next heading of the same or a higher level. */
    public static String section(String markdown, String heading) {
        int start = markdown.indexOf("\n" + heading + "\n");
        assertTrue(start >= 0, "no section '" + heading + "'");
        String level = heading.substring(0, heading.indexOf(' ') + 1);
        Matcher next = Pattern.compile("(?m)^#{1," + (level.length() - 1) + "} ").matcher(markdown);
        int end = next.find(start + heading.length() + 2) ? next.start() : markdown.length();
        return markdown.substring(start + 1, end);
    }

    /** Asserts a finished script succeeded and printed what its {@code # outputs: …} comments promise. */
    public static void assertRanAsDocumented(String script, Result r) {
        assertEquals(0, r.exit(), script + "\n--- printed:\n" + r.output());
        Matcher m = OUTPUTS.matcher(script);
        int promised = 0;
        while (m.find()) {
            promised++;
            assertTrue(r.output().contains(m.group(1).trim()), "promised '" + m.group(1).trim() + "':\n" + r.output());
        }
        assertTrue(promised > 0, "the commands promise an output: " + script);
    }
}
