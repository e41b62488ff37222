package org.mpfl.compiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.mpfl.ir.diag.Diagnostic;
import org.mpfl.fixtures.InlineExpectations;

/**
 * Every fixture under {@code src/test/resources/fixtures} checked the way {@code mpflc check} checks
 * it, against the diagnostics written inside it ({@link InlineExpectations}, docs/fixtures.md).
 */
class FixtureDiagnosticsTest {
    static final Path FIXTURES = Paths.get("src/test/resources/fixtures");
    private static final String MAX_MILLIS = "mpfl.check.maxMillis";
    private static String savedMaxMillis;

    // The communication check's wall-clock budget is a safety net whose message depends on the
    // machine's speed; raised here, the operation limit (deterministic) is what operation-limit.mpfl.xml meets.
    @BeforeAll
    static void deterministicLimits() {
        savedMaxMillis = System.setProperty(MAX_MILLIS, "60000");
    }

    @AfterAll
    static void restoreLimits() {
        if (savedMaxMillis == null) {
            System.clearProperty(MAX_MILLIS);
        } else {
            System.setProperty(MAX_MILLIS, savedMaxMillis);
        }
    }

    static Stream<Path> fixtures() throws IOException {
        List<Path> files;
        try (Stream<Path> walk = Files.walk(FIXTURES)) {
            files = walk.filter(p -> p.getFileName().toString().endsWith(".mpfl.xml")).map(FIXTURES::relativize).sorted().toList();
        }
        assertTrue(files.size() > 15, "fixtures found: " + files);
        return files.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fixtures")
    void diagnosticsAreExactlyTheInlineExpectations(Path fixture) throws IOException {
        Path file = FIXTURES.resolve(fixture);
        String mismatch = check(file, Files.readString(file, StandardCharsets.UTF_8));
        if (mismatch != null) {
            fail(file + ":\n" + mismatch);
        }
    }

    /** What {@code mpflc check FILE --param …} reports, compared with the document's expectations; null if equal. */
    static String check(Path file, String text) {
        InlineExpectations expectations = new InlineExpectations(text);
        MpflCompiler compiler = expectations.typesOnly() ? new MpflCompiler(List.of()) : new MpflCompiler();
        MpflCompiler.CheckResult result = compiler.check(file, file.getFileName().toString(), expectations.params());
        return expectations.mismatch(result.diagnostics().sorted());
    }

    private static String checkText(String text) {
        InlineExpectations expectations = new InlineExpectations(text);
        MpflCompiler.CheckResult result = new MpflCompiler().check(text.getBytes(StandardCharsets.UTF_8), "t.mpfl.xml", null,
                expectations.params());
        return expectations.mismatch(result.diagnostics().sorted());
    }

    private static final String UNDECLARED = """
            <workflow xmlns="urn:mpfl:1.0" name="t">
              <process name="p">
                <assign to="x" value="1"/>
              </process>
            </workflow>
            """;

    @Test
    void theHarnessAcceptsTheRightExpectation() {
        assertNull(checkText(UNDECLARED + "<!-- expect: 3:17 error: unknown variable 'x' -->\n"));
    }

    @Test
    void aWrongExpectationIsReportedAsMissingAndTheActualDiagnosticAsUnexpected() {
        String report = checkText(UNDECLARED + "<!-- expect: 3:17 error: 'x' is not declared -->\n");
        assertNotNull(report, "a wrong expectation must not pass");
        assertEquals("missing:    <!-- expect: 3:17 error: 'x' is not declared -->\n"
                + "unexpected: <!-- expect: 3:17 error: unknown variable 'x' -->\n", report);
    }

    @Test
    void aDocumentWithoutExpectationsMustBeClean() {
        String report = checkText(UNDECLARED);
        assertEquals("unexpected: <!-- expect: 3:17 error: unknown variable 'x' -->\n", report);
    }

    @Test
    void aWrongPositionOrSeverityIsAMismatch() {
        assertNotNull(checkText(UNDECLARED + "<!-- expect: 3:5 error: unknown variable 'x' -->\n"));
        assertNotNull(checkText(UNDECLARED + "<!-- expect: 3:17 warning: unknown variable 'x' -->\n"));
        assertNotNull(checkText(UNDECLARED + "<!-- expect: 3:17 error: unknown variable -->\n"), "messages are exact, not substrings");
    }

    @Test
    void theOrderIsPartOfTheExpectation() {
        String twoErrors = UNDECLARED.replace("<assign to=\"x\" value=\"1\"/>", "<assign to=\"x\" value=\"1\"/><assign to=\"y\" value=\"1\"/>");
        String right = "<!-- expect: 3:17 error: unknown variable 'x' -->\n<!-- expect: 3:43 error: unknown variable 'y' -->\n";
        assertNull(checkText(twoErrors + right));
        String swapped = "<!-- expect: 3:43 error: unknown variable 'y' -->\n<!-- expect: 3:17 error: unknown variable 'x' -->\n";
        assertTrue(checkText(twoErrors + swapped).startsWith("the same diagnostics in another order"), checkText(twoErrors + swapped));
    }

    @Test
    void malformedAndOldStyleExpectationsAreNotSilentlyIgnored() {
        String report = checkText(UNDECLARED + "<!-- expect: 3 error: unknown variable 'x' -->\n");
        assertTrue(report.contains("malformed: 1 'expect' comment(s)"), report);
        report = checkText(UNDECLARED + "<!-- error: unknown variable 'x' -->\n");
        assertTrue(report.contains("malformed: old-style expectation"), report);
    }

    @Test
    void paramsAndDashesAreWrittenTheWayCommentsAllow() {
        String doc = """
                <workflow xmlns="urn:mpfl:1.0" name="t">
                  <param name="n" type="int" default="1"/>
                  <process name="p"/>
                </workflow>
                <!-- param: n=two -->
                """;
        String expected = "2:3 error: --param n=two: not a valid int (a decimal integer)";
        String comment = InlineExpectations.comment(expected);
        assertEquals("<!-- expect: 2:3 error: &#45;&#45;param n=two: not a valid int (a decimal integer) -->", comment);
        String report = checkText(doc + comment + "\n");
        assertNull(report, () -> report + " (all: " + new MpflCompiler().check(doc.getBytes(StandardCharsets.UTF_8), "t.mpfl.xml",
                null, Map.of("n", "two")).diagnostics().sorted().stream().map(Diagnostic::format).toList() + ")");
    }
}
