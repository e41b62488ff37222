package org.mpfl.runtime.host;

import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * A host that stops writes nothing of its own to standard output: Axis2's {@code SimpleHTTPServer.stop()} printed
 * "[SimpleHTTPServer] Stop called" there, so a host refused by the engine (or stopped with SIGTERM) ended its output
 * with that line beside the one line saying why (found by the deployment walkthrough, {@code mpflc host} with a
 * revoked credential).
 */
class HostStopOutputTest {
    @Test
    void stoppingAHostPrintsNoAxis2Line() throws Exception {
        PrintStream original = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            ServiceHost.start(ServiceHost.Options.loopback()).close();
        } finally {
            System.setOut(original);
        }
        String said = out.toString(StandardCharsets.UTF_8);
        assertFalse(said.contains("Stop called"), said);
    }
}
