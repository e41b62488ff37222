package org.mpfl.runtime.interp.kernel;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.mpfl.ir.MpflType;
import org.mpfl.runtime.settings.RuntimeSettings;

/**
 * docs/kernel-protocol.md says what the code does: every MPFL type has a row of its types table, the
 * protocol version is the one both sides speak, the settings it names exist, the markers of the
 * infrastructure fault and the shared-memory alignment are the code's.
 */
class KernelProtocolDocTest {
    private static final Path DOC = Path.of("../docs/kernel-protocol.md");

    private static String doc() throws IOException {
        return Files.readString(DOC, StandardCharsets.UTF_8);
    }

    private static String worker() throws IOException {
        return new String(org.mpfl.protocol.kernel.PythonWorker.script(), StandardCharsets.UTF_8);
    }

    @Test
    void everyTypeHasARow() throws IOException {
        String doc = doc();
        for (MpflType t : MpflType.values()) {
            assertTrue(doc.contains("`" + t.spelling() + "`"), "docs/kernel-protocol.md has no row for " + t.spelling());
        }
    }

    @Test
    void theVersionMarkersAndSettingsAreTheCodes() throws IOException {
        String doc = doc();
        String worker = worker();
        assertTrue(worker.contains("PROTOCOL = 1") && doc.contains("`ready 1`"), "protocol version 1 on both sides");
        assertTrue(worker.contains("ALIGN = " + SharedArena.ALIGN) && doc.contains("multiple of " + SharedArena.ALIGN),
                "alignment " + SharedArena.ALIGN);
        assertTrue(doc.contains(KernelFailure.LOST_MARK), "the lost-worker marker");
        for (String setting : new String[] {RuntimeSettings.KERNEL_START_TIMEOUT_MS.name(), RuntimeSettings.KERNEL_LOG_BYTES_PER_CALL.name()}) {
            assertTrue(doc.contains("`" + setting + "`"), setting);
        }
        assertTrue(doc.contains(OutputPump.MAX_LINE_BYTES / 1024 + " KiB"), "the line cut");
        for (String verb : new String[] {"load", "call", "exit", "result", "ok", "error"}) {
            assertTrue(doc.contains("`" + verb) && worker.contains("\"" + verb.split(" ")[0]), verb);
        }
    }
}
