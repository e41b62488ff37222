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
import org.mpfl.ir.files.FileTrees;
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
        assertEquals(false, d.withPeers());
        assertEquals(true, FirstRunBenchCommand.parse(List.of("--with-peers"), home).withPeers());
    }

    @Test
    void thePeersTimesAndTheRatiosToThem() {
        List<PeerStartup.Time> t = PeerStartup.parse(List.of("compiling…", "startup,mpj-multicore,0.640",
                "startup,mpj-niodev,FAILED: no daemon", "startup,ompi-shm,0.400", "median,mpj-multicore,0.640,min 0.640"));
        assertEquals(List.of(new PeerStartup.Time("mpj-multicore", 0.64), new PeerStartup.Time("ompi-shm", 0.4)), t);
        List<FirstRunBenchCommand.Run> runs = List.of(new FirstRunBenchCommand.Run("plain", 1, 2.0, 0),
                new FirstRunBenchCommand.Run("default", 1, 0.8, 0), new FirstRunBenchCommand.Run("mpj-multicore", 1, 0.64, 0),
                new FirstRunBenchCommand.Run("ompi-shm", 1, 0.4, 0));
        var ratios = FirstRunBenchCommand.ratiosToPeers(FirstRunBenchCommand.medians(runs));
        assertEquals(List.of("mpj-multicore", "ompi-shm"), List.copyOf(ratios.keySet()));
        assertEquals(1.25, ratios.get("mpj-multicore"), 1e-9);
        assertEquals(2.0, ratios.get("ompi-shm"), 1e-9);
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
            FileTrees.deleteQuietly(dir);
        }
    }
}
