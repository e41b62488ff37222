package org.mpfl.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.mpfl.testing.MpflcCall;
import org.mpfl.ir.cli.CliCommand;

/**
 * {@code --help} and {@code -h} on every {@code mpflc} command, run as a user runs them: this module's
 * class path holds every module's commands (compiler, runtime, engine, benchmarks). Each prints its
 * usage on stdout and exits 0 without doing anything; an unknown option is exit 2 naming it.
 */
class EveryCommandHelpTest {
    @Test
    void everyCommandAnswersHelpAndNamesAnUnknownOption() {
        List<String> names = new ArrayList<>();
        ServiceLoader.load(CliCommand.class).forEach(c -> names.add(c.name()));
        assertTrue(names.size() >= 19, "every module's commands are on the class path: " + names);
        names.add("bench p2p");
        for (String name : names) {
            for (String help : List.of("--help", "-h")) {
                List<String> words = new ArrayList<>(List.of(name.split(" ")));
                words.add(help);
                MpflcCall call = MpflcCall.run(words.toArray(String[]::new));
                assertEquals(0, call.exit(), words + ": " + call.err());
                assertTrue(call.out().startsWith("usage: mpflc " + name), words + ": " + call.out());
                assertEquals("", call.err(), words.toString());
            }
            if (name.equals("bench")) {
                continue; // takes a benchmark's name first
            }
            List<String> words = new ArrayList<>(List.of(name.split(" ")));
            words.add("--no-such-option");
            MpflcCall bad = MpflcCall.run(words.toArray(String[]::new));
            assertEquals(2, bad.exit(), words + ": " + bad.err());
            assertTrue(bad.err().startsWith("mpflc " + name.split(" ")[0] + ": unknown option --no-such-option"),
                    words + ": " + bad.err());
        }
        MpflcCall bench = MpflcCall.run("bench", "--help");
        for (String sub : List.of("p2p", "collectives", "mediator", "moldyn", "first-run", "startup", "lab")) {
            assertTrue(bench.out().contains("  " + sub + " "), sub + " in " + bench.out());
        }
    }
}
