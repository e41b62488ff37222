package org.mpfl.runtime.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.mpfl.ir.cli.UsageException;

/** {@code mpflc host --site NAME}: a malformed site name stops the host before it starts anything, saying what a name may hold. */
class HostSiteOptionTest {
    @Test
    void aMalformedSiteIsAUsageError() {
        PrintStream sink = new PrintStream(new ByteArrayOutputStream());
        UsageException e = assertThrows(UsageException.class, () -> HostMain.run(List.of("--site", "site a"), sink, sink));
        assertEquals("--site: bad site name 'site a': 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or a digit",
                e.getMessage());
    }
}
