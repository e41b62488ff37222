package org.mpfl.runtime.interp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a Java activity writes to {@code System.out} and {@code System.err} becomes its rank's log lines, as a Python
 * kernel's {@code print} does (KernelOutputLinesTest): before, it went to the JVM's standard output, which a host
 * throws away. Other threads' output is left alone.
 */
class JavaKernelOutputTest {
    private static final Duration LIMIT = Duration.ofSeconds(60);

    private static InterpreterHarness.Result run(Path dir, String body) throws Exception {
        Path document = dir.resolve("prints.mpfl.xml");
        Files.writeString(document, """
                <workflow xmlns="urn:mpfl:1.0" name="prints">
                  <param name="what" type="string" default="'lines'"/>
                  <process name="node" ranks="2">
                %s
                  </process>
                </workflow>
                """.formatted(body));
        return InterpreterHarness.run(document, Map.of(), LIMIT).succeeded();
    }

    @Test
    void anActivitysPrintsAreItsRanksLogLines(@TempDir Path dir) throws Exception {
        InterpreterHarness.Result r = run(dir, """
                    <for var="i" from="0" to="2">
                      <compute class="org.mpfl.runtime.interp.activities.Prints" in="what"/>
                    </for>
                """);
        for (int rank = 0; rank < 2; rank++) {
            List<String> logs = r.rank(rank).logs;
            // the open line shows at the end of each call, and the next call's lines are lines of their own
            assertEquals(List.of("info: out of rank " + rank, "warn: err of rank " + rank + " \\x1b[31mred",
                    "info: open of rank " + rank, "info: out of rank " + rank, "warn: err of rank " + rank + " \\x1b[31mred",
                    "info: open of rank " + rank), logs.stream().filter(l -> l.contains("of rank")).toList());
        }
    }

    @Test
    void parallelBranchesPrintToTheirRank(@TempDir Path dir) throws Exception {
        InterpreterHarness.Result r = run(dir, """
                    <parallel>
                      <branch><compute class="org.mpfl.runtime.interp.activities.Prints" in="what"/></branch>
                      <branch><compute class="org.mpfl.runtime.interp.activities.Prints" in="what"/></branch>
                    </parallel>
                """);
        for (int rank = 0; rank < 2; rank++) {
            List<String> logs = r.rank(rank).logs;
            assertEquals(2, logs.stream().filter(("info: out of rank " + rank)::equals).count(), logs.toString());
            assertEquals(2, logs.stream().filter(("warn: err of rank " + rank + " \\x1b[31mred")::equals).count(), logs.toString());
        }
    }

    @Test
    void manyLinesAreShownUpToTheCallsBudgetAndCounted(@TempDir Path dir) throws Exception {
        InterpreterHarness.Result r = run(dir, """
                    <var name="many" type="string" init="'many'"/>
                    <compute class="org.mpfl.runtime.interp.activities.Prints" in="many"/>
                """);
        List<String> logs = r.rank(0).logs;
        long shown = logs.stream().filter(l -> l.startsWith("info: line ")).count();
        // 64 KiB of lines of 97 to 101 bytes
        assertTrue(shown > (64 << 10) / 101 && shown <= (64 << 10) / 97, shown + " lines shown");
        assertTrue(logs.contains("warn: " + (10_000 - shown) + " lines of kernel output not shown (more than " + (64 << 10)
                + " bytes in one call; mpfl.kernel.logBytesPerCall)"), logs.subList(logs.size() - 3, logs.size()).toString());
    }

    @Test
    void otherThreadsOutputGoesWhereItWent(@TempDir Path dir) throws Exception {
        PrintStream before = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            run(dir, "<compute class=\"org.mpfl.runtime.interp.activities.Prints\" in=\"what\"/>");
            System.out.println("the test's own line");
            System.out.flush();
        } finally {
            System.setOut(before);
        }
        String said = captured.toString(StandardCharsets.UTF_8);
        assertEquals("the test's own line\n", said);
    }

    @Test
    void theHostsOwnLogLinesOnARankThreadStayTheHosts(@TempDir Path dir) throws Exception {
        PrintStream before = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        InterpreterHarness.Result r;
        try {
            r = run(dir, """
                        <var name="logs" type="string" init="'logs'"/>
                        <compute class="org.mpfl.runtime.interp.activities.Prints" in="logs"/>
                    """);
        } finally {
            System.setErr(before);
        }
        assertTrue(r.rank(0).logs.stream().noneMatch(l -> l.contains("a line of the host's log")), r.rank(0).logs.toString());
        assertTrue(captured.toString(StandardCharsets.UTF_8).contains("a line of the host's log"), captured.toString(StandardCharsets.UTF_8));
    }
}
