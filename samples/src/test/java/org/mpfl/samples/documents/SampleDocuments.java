package org.mpfl.samples.documents;

import org.mpfl.ir.cli.Commands;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** The sample documents on disk, and mpflc run in-process on them. */
final class SampleDocuments {
    /** Surefire runs in the module directory, samples/. */
    static final Path SAMPLES = Path.of("").toAbsolutePath();

    private SampleDocuments() {
    }

    static List<Path> all() throws IOException {
        try (Stream<Path> dirs = Files.list(SAMPLES)) {
            return dirs.filter(Files::isDirectory)
                    .map(dir -> dir.resolve(dir.getFileName() + ".mpfl.xml"))
                    .filter(Files::isRegularFile)
                    .sorted()
                    .toList();
        }
    }

    static Path document(String sample) {
        return SAMPLES.resolve(sample).resolve(sample + ".mpfl.xml");
    }

    record Result(int exitCode, String out, String err) {
    }

    static Result mpflc(List<String> args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit;
        try (PrintStream outStream = new PrintStream(out, true, StandardCharsets.UTF_8);
             PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            exit = Commands.run(args, outStream, errStream);
        }
        return new Result(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** Whether this build's mpflc has the command yet (the compiler and engine contribute them). */
    static boolean hasCommand(String command) {
        Result help = mpflc(List.of("--help"));
        return help.out().lines().anyMatch(line -> line.trim().startsWith(command + " "));
    }
}
