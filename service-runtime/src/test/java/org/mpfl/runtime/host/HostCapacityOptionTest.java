package org.mpfl.runtime.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.mpfl.ir.cli.UsageException;

/**
 * {@code mpflc host --capacity N}: below 1 is a usage error before the host starts anything. Before, the host started,
 * the engine refused its announcement (400) and the host kept asking, warning now and then.
 */
class HostCapacityOptionTest {
    @Test
    void aCapacityBelowOneIsAUsageError() {
        PrintStream sink = new PrintStream(new ByteArrayOutputStream());
        for (String n : List.of("0", "-4")) {
            // the malformed --site (checked after the capacity) ends the command either way: without the capacity
            // check the test fails on its message instead of starting a host
            UsageException e = assertThrows(UsageException.class,
                    () -> HostMain.run(List.of("--capacity", n, "--site", "site a"), sink, sink));
            assertEquals("--capacity must be at least 1, got " + n, e.getMessage());
        }
    }
}
