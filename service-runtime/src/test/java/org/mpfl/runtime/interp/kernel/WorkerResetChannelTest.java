package org.mpfl.runtime.interp.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.protocol.kernel.PythonWorker;
import org.mpfl.testing.StartsProcesses;

/**
 * The Python worker whose rank closes the control channel with the worker's frame still unread — the socket is
 * reset under the worker, as when a rank is aborted mid-exchange — exits quietly with status 0. Before, it printed
 * a {@code ConnectionResetError} traceback, which became {@code warn} lines of the aborted rank's log. The rank's
 * side here is a small Python script: closing a Java channel does not reset a Unix socket the same way every time
 * (a channel registered with a selector is closed later), a plain {@code close(2)} with unread data always does.
 */
@StartsProcesses
class WorkerResetChannelTest {
    private static final String PYTHON = System.getProperty("mpfl.test.python", "/usr/bin/python3");
    private static final String RANK_SIDE = String.join("\n",
            "import os, select, socket, subprocess, sys",
            "directory, worker = sys.argv[1], sys.argv[2]",
            "path = os.path.join(directory, 'ctl')",
            "shm = os.path.join(directory, 'shm')",
            "open(shm, 'w').close()",
            "server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)",
            "server.bind(path)",
            "server.listen(1)",
            "env = dict(os.environ, MPFL_KERNEL_SOCKET=path, MPFL_KERNEL_SHM=shm)",
            "with open(os.path.join(directory, 'stderr'), 'wb') as err:",
            "    p = subprocess.Popen([sys.executable, '-u', worker], env=env, stdin=subprocess.DEVNULL,",
            "                         stdout=subprocess.DEVNULL, stderr=err)",
            "    rank_end, _ = server.accept()",
            "    # the worker's 'ready' frame has arrived and stays unread: this close resets the worker's socket",
            "    if not select.select([rank_end], [], [], 30)[0]:",
            "        p.kill(); sys.exit('no ready frame within 30 s')",
            "    rank_end.close()",
            "    try:",
            "        print(p.wait(30))",
            "    except subprocess.TimeoutExpired:",
            "        p.kill(); sys.exit('the worker did not exit within 30 s')",
            "");

    @Test
    void aWorkerWhoseChannelIsResetExitsQuietly(@TempDir Path dir) throws Exception {
        Path worker = Files.write(dir.resolve(PythonWorker.NAME), PythonWorker.script());
        Path rankSide = Files.writeString(dir.resolve("rank_side.py"), RANK_SIDE);
        Process p = new ProcessBuilder(List.of(PYTHON, rankSide.toString(), dir.toString(), worker.toString()))
                .redirectInput(new File("/dev/null")).redirectErrorStream(true).start();
        String said;
        try {
            assertTrue(p.waitFor(90, TimeUnit.SECONDS), "the rank side finished");
            said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        } finally {
            p.destroyForcibly();
        }
        assertEquals(0, p.exitValue(), said);
        assertEquals("", Files.readString(dir.resolve("stderr")), "the worker said nothing on stderr");
        assertEquals("0", said, "the worker's exit status");
    }
}
