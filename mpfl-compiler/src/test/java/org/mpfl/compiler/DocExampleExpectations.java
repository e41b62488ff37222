package org.mpfl.compiler;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.mpfl.compiler.diag.Diagnostic;

/**
 * Expectations written inside a documentation example of {@code docs/*.md}, next to the line they
 * are about, matched by substring. (The test fixtures use the exact, end-of-file convention of
 * {@link InlineExpectations} instead; the docs have not been converted to it.)
 * <ul>
 *   <li>{@code <!-- error: text -->} / {@code <!-- warning: text -->} — a diagnostic of that severity
 *       on this line whose message contains {@code text};</li>
 *   <li>{@code <!-- error@12: text -->} — the same on line 12 (for lines that cannot hold a comment);
 *       {@code <!-- error@12:5: text -->} also fixes the column, {@code <!-- error@:5: text -->} fixes only
 *       the column, on this line;</li>
 *   <li>{@code <!-- note: text -->} — a note (secondary location) of some diagnostic on this line;</li>
 *   <li>{@code <!-- param: n=5 -->} — check with {@code --param n=5};</li>
 *   <li>{@code <!-- check: types-only -->} — skip the whole-program analyses (communication check).</li>
 * </ul>
 * No expectation means the document must be clean.
 */
public final class DocExampleExpectations {
    private static final Pattern EXPECTATION = Pattern.compile("<!--\\s*(error|warning|note)(?:@(\\d*)(?::(\\d+))?)?:\\s*(.*?)\\s*-->");
    private static final Pattern PARAM = Pattern.compile("<!--\\s*param:\\s*([A-Za-z_][A-Za-z0-9_]*)=(.*?)\\s*-->");

    /** One expected diagnostic; column 0 = any. */
    public record Expected(int line, int column, String severity, String text) {
        boolean matches(Diagnostic d) {
            boolean isNote = d.message().startsWith(NOTE_MARK);
            boolean severityMatches = severity.equals("note") ? isNote : !isNote && d.severity().label().equals(severity);
            return d.location().line() == line && (column == 0 || d.location().column() == column)
                    && severityMatches && d.message().contains(text);
        }

        @Override
        public String toString() {
            return line + (column == 0 ? "" : ":" + column) + ": " + severity + ": ..." + text + "...";
        }
    }

    /** Prefix that marks a note turned into a pseudo-diagnostic for comparison. */
    private static final String NOTE_MARK = "note: ";

    private final List<Expected> expected = new ArrayList<>();
    private final Map<String, String> params = new LinkedHashMap<>();
    private final boolean typesOnly;

    public DocExampleExpectations(String text) {
        String[] lines = text.split("\r\n|\r|\n", -1);
        for (int i = 0; i < lines.length; i++) {
            Matcher m = EXPECTATION.matcher(lines[i]);
            while (m.find()) {
                int line = m.group(2) == null || m.group(2).isEmpty() ? i + 1 : Integer.parseInt(m.group(2));
                int column = m.group(3) == null ? 0 : Integer.parseInt(m.group(3));
                expected.add(new Expected(line, column, m.group(1), unescape(m.group(4))));
            }
            Matcher p = PARAM.matcher(lines[i]);
            while (p.find()) {
                params.put(p.group(1), p.group(2));
            }
        }
        typesOnly = text.contains("<!-- check: types-only -->");
    }

    /** Comments cannot contain "--": examples write it as "&#45;&#45;"; &lt; &gt; &amp; are also understood. */
    private static String unescape(String s) {
        return s.replace("&#45;", "-").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&");
    }

    public Map<String, String> params() {
        return params;
    }

    public boolean typesOnly() {
        return typesOnly;
    }

    /** Empty if the diagnostics are exactly what the document expects; otherwise a readable list of differences. */
    public List<String> differences(List<Diagnostic> diagnostics) {
        List<String> problems = new ArrayList<>();
        // notes are compared like diagnostics of severity "note"
        List<Diagnostic> actual = new ArrayList<>(diagnostics);
        for (Diagnostic d : diagnostics) {
            for (Diagnostic.Note n : d.notes()) {
                actual.add(new Diagnostic(n.location(), org.mpfl.compiler.diag.Severity.ERROR, NOTE_MARK + n.message()));
            }
        }
        List<Diagnostic> unmatched = new ArrayList<>(actual);
        for (Expected e : expected) {
            Diagnostic match = unmatched.stream().filter(e::matches).findFirst().orElse(null);
            if (match == null) {
                problems.add("missing   " + e);
            } else {
                unmatched.remove(match);
            }
        }
        for (Diagnostic d : unmatched) {
            problems.add("unexpected " + (d.message().startsWith(NOTE_MARK) ? d.location() + ": " + d.message() : d.format()));
        }
        return problems;
    }
}
