package org.mpfl.samples.moldyn;

import org.mpfl.ir.cli.Commands;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mpfl.testing.StartsProcesses;

/**
 * {@code mpflc bench moldyn} on a tiny case (mm=3, 2 moves) with the real sample and its activity
 * jar: every variant of the force reduction (auto, serial reduce + broadcast, a named allreduce
 * algorithm) compiles, runs on 1 and 2 ranks and ends with the one-rank ek; the JSON has its shape.
 */
@Timeout(300)
@StartsProcesses
class MolDynBenchCommandTest {
    @Test
    void tinyRunOfEveryVariant() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Path document = Path.of("moldyn", "moldyn.mpfl.xml").toAbsolutePath();
        int code = Commands.run(List.of("bench", "moldyn", "--json", "--mm", "3", "--ranks", "1,2", "--moves", "2",
                "--algorithms", "auto,serial,binomial", "--repeat", "2", "--warmup-seconds", "0", "--host-jvm-arg", "-Xmx256m", "--run-timeout", "90", "--document", document.toString()),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(0, code, err.toString(StandardCharsets.UTF_8));
        JsonNode all = new ObjectMapper().readTree(out.toString(StandardCharsets.UTF_8).trim());
        JsonNode results = all.get("results");
        assertEquals(4, results.size(), results.toString()); // p=1 (every variant's one-rank runs pooled), then p=2 per algorithm
        assertEquals(6, results.get(0).get("repeats").asInt(), "two one-rank runs per variant");
        double ek1 = results.get(0).get("ek").asDouble();
        for (JsonNode r : results) {
            assertEquals(108, r.get("particles").asInt());
            assertEquals("no_reference", r.get("validation").asText()); // references exist for 50 moves of mm=8/13 only
            assertEquals(ek1, r.get("ek").asDouble(), 1e-9 * Math.abs(ek1), r.toString());
            assertTrue(r.get("total_s").asDouble() > 0, r.toString());
            assertTrue(r.get("total_s_min").asDouble() <= r.get("total_s").asDouble()
                    && r.get("total_s").asDouble() <= r.get("total_s_max").asDouble(), r.toString());
        }
        assertEquals("serial", results.get(2).get("algorithm").asText());
        assertTrue(all.get("mpj").has("rows"));
    }
}
