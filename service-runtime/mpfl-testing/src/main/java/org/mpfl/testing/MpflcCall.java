package org.mpfl.testing;

import org.mpfl.ir.cli.Commands;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * One {@code mpflc} command line run in this JVM as a user runs it ({@link Commands#run}), with its exit
 * code and what it printed on stdout and stderr. Shared by the modules' command tests.
 *
 * @param exit the exit code
 * @param out  standard output
 * @param err  standard error
 */
public record MpflcCall(int exit, String out, String err) {

    /** Runs {@code mpflc ARGS…}. */
    public static MpflcCall run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = Commands.run(List.of(args), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new MpflcCall(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
