package org.mpfl.runtime.interp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.mpfl.fixtures.InlineExpectations;
import org.mpfl.protocol.RunMessages;

/**
 * Every document of {@code src/test/resources/interp} that says what a run of it outputs
 * ({@code <!-- run: NAME@RANK = JSON -->}, docs/fixtures.md) run by the interpreter with its
 * {@code <!-- param: -->} values, its outputs compared as the JSON the engine would report.
 */
@Timeout(120)
class InterpreterFixturesTest {
    private static final Duration LIMIT = Duration.ofSeconds(30);
    private static final ObjectMapper JSON = new ObjectMapper();

    static Path folder() {
        try {
            return Path.of(InterpreterFixturesTest.class.getResource("/interp").toURI());
        } catch (URISyntaxException e) {
            throw new AssertionError(e);
        }
    }

    static Stream<String> fixturesWithRunExpectations() throws IOException {
        List<String> names;
        try (Stream<Path> files = Files.list(folder())) {
            names = files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".mpfl.xml")).sorted()
                    .filter(n -> new InlineExpectations(read(n)).hasRunExpectations()).toList();
        }
        assertTrue(names.size() >= 6, "fixtures with run expectations: " + names);
        return names.stream();
    }

    static String read(String name) {
        try {
            return Files.readString(folder().resolve(name), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** The outputs of a run as the engine reports them: {NAME: {"RANK": VALUE}}, values as the host writes them. */
    static ObjectNode outputs(InterpreterHarness.Result result) {
        ObjectNode outputs = JSON.createObjectNode();
        for (InterpreterHarness.RankRecord rank : result.ranks()) {
            synchronized (rank.outputs) {
                rank.outputs.forEach((name, value) -> {
                    ObjectNode byRank = outputs.has(name) ? (ObjectNode) outputs.get(name) : outputs.putObject(name);
                    try {
                        byRank.set(Integer.toString(rank.rank), JSON.readTree(RunMessages.toJson(value)));
                    } catch (JsonProcessingException e) {
                        throw new AssertionError(e);
                    }
                });
            }
        }
        return outputs;
    }

    /** Runs a document as its comments say and compares its outputs with them; null if they agree. */
    static String runAndCompare(String name, String text) {
        InlineExpectations expectations = new InlineExpectations(text);
        InterpreterHarness.Result result = InterpreterHarness.run(name, expectations.params(), LIMIT).succeeded();
        return expectations.runMismatch(outputs(result), result.ranks().size());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fixturesWithRunExpectations")
    void outputsAreExactlyTheInlineExpectations(String fixture) {
        String mismatch = runAndCompare(fixture, read(fixture));
        if (mismatch != null) {
            fail("interp/" + fixture + ":\n" + mismatch);
        }
    }

    // the harness itself: a wrong run expectation must not pass

    @Test
    void theHarnessAcceptsTheRightExpectations() {
        assertNull(runAndCompare("parallel.mpfl.xml", "<!-- run: got = 101 --><!-- run: got@1 = 100 --><!-- run: counted@* = 10 -->"));
    }

    @Test
    void aWrongValueIsReportedWithTheValueTheRunOutput() {
        String report = runAndCompare("parallel.mpfl.xml", "<!-- run: got = 100 --><!-- run: got@1 = 100 --><!-- run: counted@* = 10 -->");
        assertEquals("different:  <!-- run: got = 100 -->, the run output <!-- run: got = 101 -->\n", report);
    }

    @Test
    void aMissingOutputAndAnUncoveredRankAreReported() {
        String report = runAndCompare("parallel.mpfl.xml", "<!-- run: got = 101 --><!-- run: counted@* = 10 --><!-- run: lost@1 = 1 -->");
        assertEquals("unexpected: <!-- run: got@1 = 100 -->\nmissing:    <!-- run: lost@1 = 1 --> (no such output)\n", report);
    }

    @Test
    void aValueOfAnotherKindIsDifferent() {
        String report = runAndCompare("compute.mpfl.xml", "<!-- run: total@* = 84 -->");
        assertNotNull(report, "the double 84.0 is not the integer 84");
        assertEquals(2, report.lines().filter(line -> line.startsWith("different:")).count(), report);
    }
}
