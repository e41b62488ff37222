package org.mpfl.engine.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.testing.StartsProcesses;

/**
 * {@code bin/mpflc} finds {@code ~/.mpfl} under {@code $HOME}, as other Unix tools do: Java alone takes the home from
 * the password database, so {@code HOME=/tmp/x mpflc …} used (and wrote to) the account's own {@code ~/.mpfl}.
 */
@StartsProcesses
@Timeout(120)
class BinMpflcHomeTest {
    @TempDir
    Path home;

    @Test
    void theDefaultDataDirectoryFollowsHome() throws Exception {
        ProcessBuilder pb = new ProcessBuilder(org.mpfl.testing.docs.DocumentedCommands.root().resolve("bin/mpflc").toString(), "runs").redirectErrorStream(true);
        pb.environment().put("HOME", home.toString());
        pb.environment().remove("MPFL_ENGINE");
        pb.environment().put("MPFL_NO_BENCH", "1");
        Process p = pb.start();
        p.getOutputStream().close();
        String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), said);
        assertTrue(said.contains(home.resolve(".mpfl").resolve("engine") + " names no engine"), said);
    }
}
