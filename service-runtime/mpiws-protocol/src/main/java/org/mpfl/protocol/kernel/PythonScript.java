package org.mpfl.protocol.kernel;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeType;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A Python script run once for the JSON it prints: how {@code mpflc check} parses kernel files and how it and
 * {@code mpflc new} ask the worker for the module names it takes ({@link PythonWorker#takenNames}). The script is
 * written into a directory of its own, removed afterwards (or when the JVM exits first); the interpreter reads nothing, its errors are discarded,
 * and it has {@value #LIMIT_SECONDS} s to answer. Every failure is an {@link IOException} whose message says
 * which interpreter did what.
 */
public final class PythonScript {
    /** How long the interpreter may take to answer. */
    public static final long LIMIT_SECONDS = 30;

    private PythonScript() {
    }

    /**
     * Runs {@code python FLAGS SCRIPT ARGUMENTS}, the script written as {@code name}, and returns the JSON it prints.
     *
     * @param doing what the script does, for the messages ("while listing the modules it imports")
     * @param shape the answer's JSON type: any other answer (a program that exits 0 saying nothing) is no answer
     * @throws IOException when the interpreter cannot be started, does not finish in time, exits with a status other
     *                     than 0 or gives no answer of that shape (its message names the interpreter); also when
     *                     interrupted (the thread's interrupt flag is then set again)
     */
    public static JsonNode answer(String python, List<String> flags, String name, byte[] script, List<String> arguments,
                                  String doing, JsonNodeType shape) throws IOException {
        Path directory = Files.createTempDirectory("mpflc-python-");
        Path file = directory.resolve(name);
        Path output = directory.resolve("answer.json");
        // a Ctrl-C of mpflc run --local while its check runs: the JVM exits without this method's finally
        Thread atExit = new Thread(() -> delete(directory, file, output), "mpflc-python-delete");
        try {
            Runtime.getRuntime().addShutdownHook(atExit);
        } catch (IllegalStateException exiting) {
            delete(directory, file, output);
            throw new IOException("interrupted: this JVM is exiting");
        }
        try {
            Files.write(file, script);
            List<String> command = new ArrayList<>(List.of(python));
            command.addAll(flags);
            command.add(file.toString());
            command.addAll(arguments);
            Process p;
            try {
                p = new ProcessBuilder(command).redirectOutput(output.toFile())
                        .redirectError(ProcessBuilder.Redirect.DISCARD).redirectInput(new File("/dev/null")).start();
            } catch (IOException e) {
                throw new IOException("cannot run " + python + " (" + e.getMessage() + ")");
            }
            try {
                if (!p.waitFor(LIMIT_SECONDS, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    throw new IOException(python + " did not finish " + doing + " within " + LIMIT_SECONDS + " s");
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                throw e;
            }
            if (p.exitValue() != 0) {
                throw new IOException(python + " exited with status " + p.exitValue() + " while " + doing);
            }
            JsonNode answer = new ObjectMapper().readTree(Files.readString(output, StandardCharsets.UTF_8));
            if (answer == null || answer.getNodeType() != shape) {
                // a program that exits 0 without the answer (/bin/true, a wrapper script): not an empty answer, which
                // its callers would read as "no such function" or "no name taken"
                throw new IOException(python + " gave no answer: is it a Python 3 interpreter?");
            }
            return answer;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        } finally {
            delete(directory, file, output);
            try {
                Runtime.getRuntime().removeShutdownHook(atExit);
            } catch (IllegalStateException exiting) {
                // the hook deletes them (again)
            }
        }
    }

    /** Deletes the script's files, then its directory; best effort (a leftover in the temporary directory is harmless). */
    private static void delete(Path directory, Path... files) {
        try {
            for (Path f : files) {
                Files.deleteIfExists(f);
            }
            Files.deleteIfExists(directory);
        } catch (IOException e) {
            // left in the temporary directory
        }
    }
}
