package org.mpfl.runtime.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.ir.cli.UsageException;
import org.mpfl.protocol.settings.ProtocolSettings;
import org.mpfl.runtime.settings.RuntimeSettings;
import org.mpfl.testing.StartsProcesses;

/** {@code mpflc host --python PATH --allow-command-dir DIR}: a wrong interpreter stops the host at its start, saying why. */
@StartsProcesses
class KernelOptionsTest {
    @AfterEach
    void clear() {
        System.clearProperty(ProtocolSettings.KERNEL_PYTHON.name());
        System.clearProperty(RuntimeSettings.KERNEL_COMMAND_DIRS.name());
    }

    @Test
    void aPythonThreeInterpreterBecomesTheHostsKernelInterpreter(@TempDir Path dir) throws Exception {
        String python = System.getProperty("mpfl.test.python", "/usr/bin/python3");
        KernelOptions.apply(python, List.of(dir.toString()));
        assertEquals(python, ProtocolSettings.KERNEL_PYTHON.get());
        assertEquals(dir.toString(), RuntimeSettings.KERNEL_COMMAND_DIRS.get());
    }

    @Test
    void aMissingOrWrongInterpreterIsRefusedAtStart(@TempDir Path dir) throws Exception {
        UsageException missing = assertThrows(UsageException.class, () -> KernelOptions.apply("/no/such/python3", List.of()));
        assertTrue(missing.getMessage().contains("--python /no/such/python3: no such file"), missing.getMessage());
        Path notPython = dir.resolve("python");
        Files.writeString(notPython, "#!/bin/sh\necho 'Perl 5'\n");
        assertTrue(notPython.toFile().setExecutable(true, true));
        UsageException wrong = assertThrows(UsageException.class, () -> KernelOptions.apply(notPython.toString(), List.of()));
        assertTrue(wrong.getMessage().contains("is not a Python 3 interpreter ('--version' said: Perl 5)"), wrong.getMessage());
        UsageException relative = assertThrows(UsageException.class, () -> KernelOptions.apply(null, List.of("bin")));
        assertTrue(relative.getMessage().contains("--allow-command-dir bin: not an absolute path of a directory"), relative.getMessage());
    }
}
