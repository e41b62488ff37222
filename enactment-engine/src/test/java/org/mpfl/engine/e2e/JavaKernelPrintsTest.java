package org.mpfl.engine.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.json.Json;
import org.mpfl.engine.local.LocalCluster;
import org.mpfl.ir.files.FileTrees;
import org.mpfl.testing.Await;
import org.mpfl.testing.Http;
import org.mpfl.testing.MpflcCall;
import org.mpfl.testing.StartsProcesses;

/**
 * What a Java activity prints on a service-host process ({@code System.out}, {@code System.err}, a line without its
 * newline, many lines) is its rank's log, as a Python kernel's {@code print} is: {@code GET /api/runs/ID/logs} shows
 * each line under the rank that printed it. Before, the host's standard output, which its launcher drains and throws
 * away, had them.
 */
@StartsProcesses
@Timeout(300)
class JavaKernelPrintsTest {
    static Path dir;
    static LocalCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("mpfl-java-prints-");
        Files.createDirectories(dir.resolve("lib"));
        TestActivities.jar(dir.resolve("lib/prints.jar"), Map.of("gen/Prints", """
                package gen;
                public class Prints implements org.mpfl.runtime.api.Activity {
                    public java.util.Map<String, Object> execute(java.util.Map<String, Object> in,
                            org.mpfl.runtime.api.ActivityContext ctx) {
                        int rank = ctx.rank();
                        System.out.println("hello from rank " + rank);
                        System.err.println("warning from rank " + rank + " \\u001b[1mbold");
                        for (int i = 0; i < 300; i++) {
                            System.out.println("rank " + rank + " line " + i);
                        }
                        System.out.print("rank " + rank + " without newline");
                        return java.util.Map.of();
                    }
                }
                """));
        Files.writeString(dir.resolve("prints.mpfl.xml"), """
                <workflow xmlns="urn:mpfl:1.0" name="prints">
                  <library path="lib/prints.jar"/>
                  <process name="p" ranks="2">
                    <compute class="gen.Prints"/>
                    <compute class="gen.Prints"/>
                  </process>
                </workflow>
                """);
        cluster = LocalCluster.start(new EngineConfig().port(0).dataDir(dir.resolve("engine")), 2, Duration.ofSeconds(120));
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
        FileTrees.deleteQuietly(dir);
    }

    @Test
    void aJavaActivitysPrintsOnAHostAreItsRanksLogLines() throws Exception {
        MpflcCall call = MpflcCall.run("run", dir.resolve("prints.mpfl.xml").toString(), "--json",
                "--engine", cluster.engine().url(), "--data", cluster.engine().config().dataDir().toString());
        assertEquals(0, call.exit(), call.err());
        String run = Json.MAPPER.readTree(call.out()).path("run").asText();
        JsonNode d = Http.get(cluster.engine().url() + "/api/runs/" + run).json();
        assertEquals("SUCCEEDED", d.path("state").asText(), d.toString());
        // the ranks post their log lines as events, which the engine stores a moment after the run's end
        Http.Answer logs = Await.until(Duration.ofSeconds(60), "every line of both ranks in the run's logs",
                () -> Http.get(cluster.engine().url() + "/api/runs/" + run + "/logs"),
                a -> a.status() != 200 || a.body().split(" without newline\n", -1).length - 1 >= 4
                        && a.body().split(" line \\d+\n", -1).length - 1 >= 1200);
        assertEquals(200, logs.status(), logs.body());
        // "2026-…Z rank 1 INFO hello from rank 1": the time dropped
        List<String> lines = Arrays.stream(logs.body().split("\n")).map(l -> l.substring(l.indexOf(' ') + 1)).toList();
        for (int rank : new int[] {0, 1}) {
            String r = "rank " + rank + " ";
            List<String> mine = lines.stream().filter(l -> l.startsWith(r)).toList();
            assertEquals(2, mine.stream().filter((r + "INFO hello from rank " + rank)::equals).count(), logs.body());
            assertEquals(2, mine.stream().filter((r + "WARN warning from rank " + rank + " \\x1b[1mbold")::equals).count(),
                    logs.body());
            assertEquals(600, mine.stream().filter(l -> l.startsWith(r + "INFO rank " + rank + " line ")).count(), logs.body());
            // the line left open is shown at the end of its call, once per call, not joined to the next call's first
            assertEquals(List.of(r + "INFO rank " + rank + " without newline", r + "INFO rank " + rank + " without newline"),
                    mine.stream().filter(l -> l.contains("without newline")).toList());
            assertTrue(mine.stream().noneMatch(l -> l.contains("newlinehello")), logs.body());
            assertEquals(List.of(), lines.stream().filter(l -> l.contains("from rank " + rank) && !l.startsWith(r)).toList(),
                    "another rank's lines");
        }
    }
}
