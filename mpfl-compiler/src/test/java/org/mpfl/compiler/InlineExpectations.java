package org.mpfl.compiler;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.mpfl.compiler.diag.Diagnostic;
import org.mpfl.compiler.diag.SourceLocation;

/**
 * The expected diagnostics a fixture carries inline (the Checkstyle habit), described in
 * {@code src/test/resources/fixtures/README.md}: one {@code <!-- expect: LINE:COL SEVERITY: MESSAGE -->}
 * per diagnostic, and per note of a diagnostic (severity {@code note}, right after it), with the exact
 * message, in the order the compiler reports them (sorted by position); {@code <!-- param: NAME=VALUE -->}
 * for {@code --param}; {@code <!-- check: types-only -->} to leave out the whole-program analyses.
 */
final class InlineExpectations {
    private static final Pattern EXPECT = Pattern.compile("<!--\\s*expect:\\s*(\\d+):(\\d+) (error|warning|note): (.*?)\\s*-->");
    private static final Pattern ANY_EXPECT = Pattern.compile("<!--\\s*expect\\b");
    /** The convention fixtures used before: a diagnostic on the comment's own line, matched by substring. */
    private static final Pattern OLD_STYLE = Pattern.compile("<!--\\s*(error|warning|note)(@[\\d:]*)?:");
    private static final Pattern PARAM = Pattern.compile("<!--\\s*param:\\s*([A-Za-z_][A-Za-z0-9_]*)=(.*?)\\s*-->");
    private static final String TYPES_ONLY = "<!-- check: types-only -->";
    /** XML comments cannot hold "--" or end in "-": such dashes are written as this reference. */
    private static final String DASH = "&#45;";

    private final List<String> expected = new ArrayList<>();
    private final Map<String, String> params = new LinkedHashMap<>();
    private final boolean typesOnly;
    private final List<String> malformed = new ArrayList<>();

    InlineExpectations(String text) {
        Matcher m = EXPECT.matcher(text);
        int wellFormed = 0;
        while (m.find()) {
            expected.add(m.group(1) + ":" + m.group(2) + " " + m.group(3) + ": " + m.group(4).replace(DASH, "-"));
            wellFormed++;
        }
        Matcher any = ANY_EXPECT.matcher(text);
        int all = 0;
        while (any.find()) {
            all++;
        }
        if (all != wellFormed) {
            malformed.add((all - wellFormed) + " 'expect' comment(s) not of the form <!-- expect: LINE:COL SEVERITY: MESSAGE -->");
        }
        Matcher old = OLD_STYLE.matcher(text);
        while (old.find()) {
            malformed.add("old-style expectation '" + old.group() + "...' (write <!-- expect: LINE:COL SEVERITY: MESSAGE --> at the end)");
        }
        Matcher p = PARAM.matcher(text);
        while (p.find()) {
            params.put(p.group(1), p.group(2));
        }
        typesOnly = text.contains(TYPES_ONLY);
    }

    Map<String, String> params() {
        return params;
    }

    boolean typesOnly() {
        return typesOnly;
    }

    /** The diagnostics as expectation lines ({@code LINE:COL SEVERITY: MESSAGE}), each followed by its notes. */
    static List<String> render(List<Diagnostic> diagnostics) {
        List<String> lines = new ArrayList<>();
        for (Diagnostic d : diagnostics) {
            lines.add(position(d.location()) + " " + d.severity().label() + ": " + d.message());
            d.notes().forEach(n -> lines.add(position(n.location()) + " note: " + n.message()));
        }
        return lines;
    }

    private static String position(SourceLocation at) {
        return at.line() + ":" + at.column();
    }

    /** An expectation line as the comment a fixture carries. */
    static String comment(String line) {
        return "<!-- expect: " + line.replaceAll("-(?=-)|(?<=-)-|-$", DASH) + " -->";
    }

    /**
     * Null if {@code diagnostics} (in the compiler's order) are exactly the expected ones; otherwise a
     * report listing the missing and the unexpected ones, or saying that only the order differs.
     */
    String mismatch(List<Diagnostic> diagnostics) {
        List<String> actual = render(diagnostics);
        if (malformed.isEmpty() && actual.equals(expected)) {
            return null;
        }
        List<String> missing = new ArrayList<>(expected);
        List<String> unexpected = new ArrayList<>();
        for (String line : actual) {
            if (!missing.remove(line)) {
                unexpected.add(line);
            }
        }
        StringBuilder report = new StringBuilder();
        malformed.forEach(problem -> report.append("malformed: ").append(problem).append('\n'));
        missing.forEach(line -> report.append("missing:    ").append(comment(line)).append('\n'));
        unexpected.forEach(line -> report.append("unexpected: ").append(comment(line)).append('\n'));
        if (missing.isEmpty() && unexpected.isEmpty() && malformed.isEmpty()) {
            report.append("the same diagnostics in another order; the compiler reports them as:\n");
            actual.forEach(line -> report.append("  ").append(comment(line)).append('\n'));
        }
        return report.toString();
    }
}
