package org.mpfl.ir.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.util.List;
import org.junit.jupiter.api.Test;

class CommandsTest {

    @Test
    void aCommandsClassIsLookedForByItsName() {
        assertEquals("RunCommand", Commands.className("run"));
        assertEquals("HostTokenCommand", Commands.className("host-token"));
        // a name that suggests no class finds none, and the whole table is used
        assertEquals("HelpCommand", Commands.className("--help"));
    }

    /** A misspelt command is named with the nearest one ('chekc' for check), then the table. */
    @Test
    void aMisspeltCommandSuggestsTheNearestOne() {
        CliCommand check = new CliCommand() {
            @Override
            public String name() {
                return "check";
            }

            @Override
            public String summary() {
                return "static checks";
            }

            @Override
            public int run(List<String> args, PrintStream out, PrintStream err) {
                return 0;
            }
        };
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = Commands.run(List.of(check), List.of("chekc", "ring.mpfl.xml"), new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(2, exit);
        assertTrue(err.toString(StandardCharsets.UTF_8).startsWith("mpflc: unknown command 'chekc' (did you mean 'check'?)\n"),
                err.toString(StandardCharsets.UTF_8));
    }

    /** A file a command could not read or write is named once, with why: the JDK's message is the bare path. */
    @Test
    void aFileProblemSaysWhyNotThePathAlone() {
        assertEquals("/proc/x: no such file", Commands.message(new NoSuchFileException("/proc/x")));
        assertEquals("/etc/shadow: permission denied", Commands.message(new AccessDeniedException("/etc/shadow")));
        assertEquals("disk on fire", Commands.message(new java.io.IOException("disk on fire")));
    }
}
