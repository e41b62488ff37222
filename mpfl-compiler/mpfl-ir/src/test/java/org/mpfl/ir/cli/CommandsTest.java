package org.mpfl.ir.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import org.junit.jupiter.api.Test;

class CommandsTest {

    @Test
    void aCommandsClassIsLookedForByItsName() {
        assertEquals("RunCommand", Commands.className("run"));
        assertEquals("HostTokenCommand", Commands.className("host-token"));
        // a name that suggests no class finds none, and the whole table is used
        assertEquals("HelpCommand", Commands.className("--help"));
    }

    /** A file a command could not read or write is named once, with why: the JDK's message is the bare path. */
    @Test
    void aFileProblemSaysWhyNotThePathAlone() {
        assertEquals("/proc/x: no such file", Commands.message(new NoSuchFileException("/proc/x")));
        assertEquals("/etc/shadow: permission denied", Commands.message(new AccessDeniedException("/etc/shadow")));
        assertEquals("disk on fire", Commands.message(new java.io.IOException("disk on fire")));
    }
}
