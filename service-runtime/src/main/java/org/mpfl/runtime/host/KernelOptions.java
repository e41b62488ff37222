package org.mpfl.runtime.host;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.mpfl.ir.cli.ExecutablePath;
import org.mpfl.ir.cli.UsageException;
import org.mpfl.protocol.settings.ProtocolSettings;
import org.mpfl.runtime.settings.RuntimeSettings;

/**
 * {@code mpflc host --python PATH --allow-command-dir DIR}: the host's kernel settings
 * (docs/kernel-protocol.md), checked at start so that a wrong interpreter is reported before any
 * rank needs it.
 */
final class KernelOptions {
    /** How long {@code PATH --version} may take at the host's start. */
    private static final long PROBE_SECONDS = 20;

    private KernelOptions() {
    }

    static void apply(String python, List<String> commandDirectories) throws UsageException {
        if (python != null) {
            // the kernel workers start in their libraries' directory: a relative path is made the user's here
            String interpreter = ExecutablePath.resolve("--python", python);
            probe(interpreter);
            System.setProperty(ProtocolSettings.KERNEL_PYTHON.name(), interpreter);
        }
        if (!commandDirectories.isEmpty()) {
            for (String d : commandDirectories) {
                if (!Path.of(d).isAbsolute() || !Files.isDirectory(Path.of(d))) {
                    throw new UsageException("--allow-command-dir " + d + ": not an absolute path of a directory");
                }
            }
            System.setProperty(RuntimeSettings.KERNEL_COMMAND_DIRS.name(), String.join(File.pathSeparator, commandDirectories));
        }
    }

    /** Runs {@code python --version}: a path that is not an interpreter fails the host's start with the reason. */
    private static void probe(String python) throws UsageException {
        Process p;
        try {
            p = new ProcessBuilder(python, "--version").redirectErrorStream(true).redirectInput(new File("/dev/null")).start();
        } catch (IOException e) {
            throw new UsageException("--python " + python + ": cannot run it: " + e.getMessage());
        }
        try {
            // a version line fits the pipe's buffer: wait first, then read what it said
            if (!p.waitFor(PROBE_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new UsageException("--python " + python + ": '" + python + " --version' did not end within "
                        + PROBE_SECONDS + " s");
            }
            byte[] output = p.getInputStream().readNBytes(4096);
            String said = new String(output, java.nio.charset.StandardCharsets.UTF_8).strip();
            if (p.exitValue() != 0 || !said.startsWith("Python 3")) {
                throw new UsageException("--python " + python + " is not a Python 3 interpreter ('--version' said: " + said + ")");
            }
        } catch (IOException e) {
            p.destroyForcibly();
            throw new UsageException("--python " + python + ": " + e.getMessage());
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new UsageException("--python " + python + ": interrupted while checking it");
        }
    }
}
