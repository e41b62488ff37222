package org.mpfl.ir.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class CommandsTest {

    @Test
    void aCommandsClassIsLookedForByItsName() {
        assertEquals("RunCommand", Commands.className("run"));
        assertEquals("HostTokenCommand", Commands.className("host-token"));
        // a name that suggests no class finds none, and the whole table is used
        assertEquals("HelpCommand", Commands.className("--help"));
    }
}
