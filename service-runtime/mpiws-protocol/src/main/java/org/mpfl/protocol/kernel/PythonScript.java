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
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A Python script run once for the JSON it prints: how {@code mpflc check} parses kernel files and how it and
 * {@code mpflc new} ask the worker for the module names it takes ({@link PythonWorker#takenNames}). The script is
 * written into a directory of its own, removed afterwards; the interpreter reads nothing, its errors are discarded,
 * and it has {@value #LIMIT_SECONDS} s to answer. Every failure is an {@link IOException} whose message says
 * which interpreter did what.
 *
 * <p>A JVM that exits first (a Ctrl-C of {@code mpflc check} or {@code mpflc run --local} while the kernels are
 * parsed) stops the interpreters under way and removes their directories whole, as the runtime's WorkerLeftovers
 * does for kernel workers: the other threads run on while the exit's hook runs, so a directory, file or process is
 * only made while the hook is not removing ({@link ExitGuard}), and nothing is made after it.
 */
public final class PythonScript {
    /** How long the interpreter may take to answer. */
    public static final long LIMIT_SECONDS = 30;

    /** The scripts under way: their directories and, once started, interpreters. */
    private static final Set<Call> UNDER_WAY = ConcurrentHashMap.newKeySet();
    /** After UNDER_WAY, which its hook reads. */
    private static final ExitGuard EXIT = new ExitGuard("mpflc-python-delete", () -> UNDER_WAY.forEach(Call::remove));

    /** One script under way. */
    private static final class Call {
        private final Path directory;
        private volatile Process interpreter;

        Call(Path directory) {
            this.directory = directory;
        }

        /** Stops the interpreter (bounded wait: it writes nothing more), then removes the directory and all it holds. */
        void remove() {
            Process p = interpreter;
            if (p != null) {
                p.destroyForcibly();
                try {
                    p.waitFor(1, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            deleteDirectory(directory);
        }
    }

    private PythonScript() {
    }

    /**
     * Runs {@code python FLAGS SCRIPT ARGUMENTS}, the script written as {@code name}, and returns the JSON it prints.
     *
     * @param doing what the script does, for the messages ("while listing the modules it imports")
     * @param shape the answer's JSON type: any other answer (a program that exits 0 saying nothing) is no answer
     * @throws IOException when the interpreter cannot be started, does not finish in time, exits with a status other
     *                     than 0 or gives no answer of that shape (its message names the interpreter); also when
     *                     interrupted (the thread's interrupt flag is then set again) or when the JVM exits
     */
    public static JsonNode answer(String python, List<String> flags, String name, byte[] script, List<String> arguments,
                                  String doing, JsonNodeType shape) throws IOException {
        Call call = EXIT.unlessExiting(() -> {
            Call made = new Call(Files.createTempDirectory("mpflc-python-"));
            UNDER_WAY.add(made);
            return made;
        });
        Path file = call.directory.resolve(name);
        Path output = call.directory.resolve("answer.json");
        try {
            EXIT.unlessExiting(() -> Files.write(file, script));
            List<String> command = new ArrayList<>(List.of(python));
            command.addAll(flags);
            command.add(file.toString());
            command.addAll(arguments);
            ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(output.toFile())
                    .redirectError(ProcessBuilder.Redirect.DISCARD).redirectInput(new File("/dev/null"));
            Process p = EXIT.unlessExiting(() -> {
                try {
                    call.interpreter = builder.start();
                    return call.interpreter;
                } catch (IOException e) {
                    throw new IOException("cannot run " + python + " (" + e.getMessage() + ")");
                }
            });
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
            deleteDirectory(call.directory);
            UNDER_WAY.remove(call);
        }
    }

    /**
     * Deletes a script's directory and whatever its interpreter wrote in it (files: neither script writes more);
     * best effort (a leftover in the temporary directory is harmless).
     */
    private static void deleteDirectory(Path directory) {
        try {
            try (Stream<Path> entries = Files.list(directory)) {
                for (Path entry : (Iterable<Path>) entries::iterator) {
                    Files.deleteIfExists(entry);
                }
            }
            Files.deleteIfExists(directory);
        } catch (IOException e) {
            // left in the temporary directory
        }
    }
}
