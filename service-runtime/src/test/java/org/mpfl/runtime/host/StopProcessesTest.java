package org.mpfl.runtime.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mpfl.protocol.launch.HostProcesses;
import org.mpfl.testing.StartsProcesses;

/**
 * {@link HostProcesses#stop(List)}, what a launcher that keeps its processes itself stops them with (the local
 * cluster's start guard): a process that ends when asked (SIGTERM) ends so, and one that ignores the request is
 * killed once the grace passed; none is left.
 */
@StartsProcesses
@Timeout(120)
class StopProcessesTest {
    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void killWhatIsLeft() {
        started.forEach(Process::destroyForcibly);
    }

    @Test
    void theProcessesAreAskedToEndAndThoseThatDoNotAreKilled() throws Exception {
        Process polite = python("pass");
        Process deaf = python("signal.signal(signal.SIGTERM, signal.SIG_IGN)");
        Process polite2 = python("pass");

        HostProcesses.stop(List.of(polite, deaf, polite2));

        for (Process p : started) {
            assertFalse(p.isAlive(), "left running: " + p.pid());
        }
        assertEquals(128 + 15, polite.exitValue(), "ended by the request (SIGTERM)");
        assertEquals(128 + 15, polite2.exitValue(), "ended by the request (SIGTERM)");
        assertEquals(128 + 9, deaf.exitValue(), "killed (SIGKILL) after the grace");
    }

    /** A python3 process that runs {@code setup}, says it is ready (waited for here), then sleeps. */
    private Process python(String setup) throws Exception {
        Process p = new ProcessBuilder("python3", "-c",
                "import signal, time\n" + setup + "\nprint('ready', flush=True)\ntime.sleep(600)\n").start();
        started.add(p);
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        assertEquals("ready", out.readLine(), "the process started");
        return p;
    }
}
