package org.mpfl.bench.workflow;

import org.mpfl.ir.cli.Commands;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.mpfl.ir.cli.UsageException;
import org.mpfl.testing.StartsProcesses;

/** Options and a tiny real run of {@code mpflc bench first-run} (one run per variant of the ring through bin/mpflc). */
class FirstRunBenchCommandTest {
    @Test
    void options() throws Exception {
        Path home = FirstRunBenchCommand.home();
        FirstRunBenchCommand.Options d = FirstRunBenchCommand.parse(List.of(), home);
        assertEquals(5, d.repeat());
        assertEquals(home.resolve("samples/ring/ring.mpfl.xml"), d.document());
        assertThrows(UsageException.class, () -> FirstRunBenchCommand.parse(List.of("--repeat", "0"), home));
        assertThrows(UsageException.class, () -> FirstRunBenchCommand.parse(List.of("--bogus"), home));
    }

    @Test
    @StartsProcesses
    void tinyRunPrintsBothVariantsAndAPlot() throws Exception {
        Path dir = Files.createTempDirectory("mpfl-bench-first-run-test-");
        try {
            Path png = dir.resolve("first-run.png");
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int code = Commands.run(List.of("bench", "first-run", "--json", "--repeat", "1", "--plot", png.toString()),
                    new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
            assertEquals(0, code, err.toString(StandardCharsets.UTF_8));
            String text = out.toString(StandardCharsets.UTF_8).trim();
            JsonNode all = new ObjectMapper().readTree(text);
            assertEquals(2, all.get("runs").size(), text);
            assertEquals("plain", all.get("runs").get(0).get("variant").asText());
            assertEquals("default", all.get("runs").get(1).get("variant").asText());
            for (JsonNode r : all.get("runs")) {
                assertTrue(r.get("wall_s").asDouble() > 0.1, text);
            }
            assertTrue(all.get("ratio").asDouble() > 0, text);
            byte[] head = java.util.Arrays.copyOf(Files.readAllBytes(png), 4);
            assertEquals("PNG", new String(head, 1, 3, StandardCharsets.US_ASCII));
        } finally {
            BenchCommands.deleteTree(dir);
        }
    }
}
