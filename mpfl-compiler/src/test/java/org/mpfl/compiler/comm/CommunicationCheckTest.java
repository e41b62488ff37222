package org.mpfl.compiler.comm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.mpfl.compiler.MpflCompiler;
import org.mpfl.ir.diag.Diagnostic;

/**
 * What the fixtures cannot show: the bounds of the check (operation limit, rank limit, arrays too
 * large to follow), its speed on the samples, determinism, and the rank-list format of its messages.
 * The diagnostics themselves are covered by the fixtures under {@code fixtures/comm}.
 */
class CommunicationCheckTest {
    /**
     * The default limits, but for the wall-clock one: these tests name the limit that stops the check,
     * and on a loaded machine the 1 s default could stop it first (seen: at 25,504 operations).
     */
    private static final CheckLimits DEFAULTS = unhurried(CheckLimits.fromSystemProperties());

    private static CheckLimits unhurried(CheckLimits l) {
        return new CheckLimits(l.maxOperations(), l.maxRanks(), l.maxValueLength(), 60_000, l.localLoopLimit());
    }

    private static List<String> check(String document, CheckLimits limits, Map<String, String> params) {
        MpflCompiler compiler = new MpflCompiler(List.of(new CommunicationCheck(limits)));
        return compiler.check(document.getBytes(StandardCharsets.UTF_8), "t.mpfl.xml", null, params)
                .diagnostics().sorted().stream().map(Diagnostic::format).toList();
    }

    private static final String RING = """
            <workflow xmlns="urn:mpfl:1.0" name="ring">
              <param name="rounds" type="int" default="3"/>
              <process name="node" ranks="4">
                <var name="x" type="int"/>
                <for var="r" from="0" to="rounds">
                  <sendrecv to="(rank + 1) % size" data="x" from="(rank + size - 1) % size" into="x"/>
                </for>
              </process>
            </workflow>
            """;

    @Test
    void theOperationLimitStopsTheCheckWithAWarning() {
        CheckLimits small = new CheckLimits(1000, DEFAULTS.maxRanks(), DEFAULTS.maxValueLength(), 60_000, 10_000);
        List<String> diagnostics = check(RING, small, Map.of("rounds", "1000000"));
        assertEquals(List.of("t.mpfl.xml:1:1: warning: the communication check stopped after 1000 operations (limit of 1000);"
                + " the communication after that point is not checked"), diagnostics);
        assertEquals(List.of(), check(RING, small, Map.of()));
    }

    @Test
    void tooManyRanksAreNotAnalysed() {
        CheckLimits small = new CheckLimits(DEFAULTS.maxOperations(), 3, DEFAULTS.maxValueLength(), 60_000, 10_000);
        List<String> diagnostics = check(RING, small, Map.of());
        assertEquals(1, diagnostics.size(), diagnostics.toString());
        assertTrue(diagnostics.get(0).contains("warning: the communication check is skipped: 4 ranks are more than it analyses (3)"));
    }

    @Test
    void arraysTooLargeToFollowBecomeUnknownInsteadOfBeingAllocated() {
        String document = """
                <workflow xmlns="urn:mpfl:1.0" name="big">
                  <param name="n" type="int" default="200000000"/>
                  <process name="p" ranks="2">
                    <var name="u" type="double[]" init="zeros(n)"/>
                    <for var="i" from="0" to="len(u) % 3">
                      <barrier/>
                    </for>
                  </process>
                </workflow>
                """;
        List<String> diagnostics = check(document, DEFAULTS, Map.of());
        assertEquals(List.of("t.mpfl.xml:5:5: warning: the communication after this <for> depends on run-time data (its bounds"
                + " use 'u', an array of 200000000 elements, more than the check follows (1048576)); not checked beyond this point"
                + " on ranks 0, 1"), diagnostics);
    }

    @Test
    void longLoopsWithoutCommunicationAreNotFollowedToTheEnd() {
        String document = """
                <workflow xmlns="urn:mpfl:1.0" name="local">
                  <process name="p" ranks="2">
                    <var name="k" type="int"/>
                    <for var="i" from="0" to="2000000000">
                      <assign to="k" value="k + 1"/>
                    </for>
                    <if test="k gt 5">
                      <barrier/>
                    </if>
                  </process>
                </workflow>
                """;
        List<String> diagnostics = check(document, DEFAULTS, Map.of());
        assertEquals(1, diagnostics.size(), diagnostics.toString());
        assertTrue(diagnostics.get(0).contains("the condition uses 'k', assigned in the <for> at t.mpfl.xml:4:5, which ran too long"
                + " to be followed"), diagnostics.get(0));
    }

    @Test
    void samplesAreCheckedFastAndTheSameWayEveryTime() throws IOException {
        List<Path> samples;
        try (Stream<Path> dirs = Files.list(Paths.get("../samples"))) {
            samples = dirs.map(d -> d.resolve(d.getFileName() + ".mpfl.xml")).filter(Files::exists).sorted().toList();
        }
        assertTrue(samples.size() >= 7, samples.toString());
        MpflCompiler compiler = new MpflCompiler(List.of(new CommunicationCheck(DEFAULTS)));
        for (Path sample : samples) {
            // library files are not resolved: the samples' jar is built after this module in a clean build
            byte[] source = Files.readAllBytes(sample);
            List<String> first = compiler.check(source, sample.getFileName().toString(), null, Map.of()).diagnostics()
                    .sorted().stream().map(Diagnostic::format).toList();
            long start = System.nanoTime();
            MpflCompiler.CheckResult again = compiler.check(source, sample.getFileName().toString(), null, Map.of());
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertTrue(again.ok(), sample + ": " + first);
            assertEquals(first, again.diagnostics().sorted().stream().map(Diagnostic::format).toList(), sample.toString());
            // a sample checks in tens of milliseconds; 5 s catches a blow-up and holds on a loaded 2-core machine
            assertTrue(millis < 5000, sample + " took " + millis + " ms");
        }
    }

    /** The same stop on many ranks is one diagnostic naming them, not one per rank with its number in the text. */
    @Test
    void aCommunicatorUsedBeforeItsSplitIsOneWarningForAllTheRanks() {
        List<String> diagnostics = check("""
                <workflow xmlns="urn:mpfl:1.0" name="later">
                  <process name="p" ranks="4">
                    <var name="x" type="int"/>
                    <assign to="x" value="rank('later')"/>
                    <split name="later" color="rank % 2"/>
                  </process>
                </workflow>
                """, DEFAULTS, Map.of());
        assertEquals(List.of("t.mpfl.xml:4:5: warning: with these param values the run fails here (communicator 'later' does not"
                + " exist yet); not checked beyond this point on ranks 0-3"), diagnostics);
    }

    @Test
    void rankListsAreCompact() {
        assertEquals("rank 3", CommunicationReporter.ranks(List.of(3)));
        assertEquals("ranks 0, 1", CommunicationReporter.ranks(List.of(1, 0)));
        assertEquals("ranks 0-2, 5, 7-9", CommunicationReporter.ranks(List.of(0, 1, 2, 5, 7, 8, 9)));
    }
}
