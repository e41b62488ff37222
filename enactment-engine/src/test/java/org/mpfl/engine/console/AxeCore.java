package org.mpfl.engine.console;

import org.mpfl.testing.browser.HeadlessChromium;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Deque's axe-core accessibility engine, run in the page the browser shows. axe-core is published on
 * npm only (no usable Maven Central jar), so {@code .ci/run} installs the version pinned once in the
 * parent POM ({@code axe-core.version}) with {@code npm install --prefix}; the POM hands Failsafe its
 * {@code axe.min.js} as {@code -Dmpfl.axe=PATH}. Without the file the checks fail, saying how to install it.
 */
final class AxeCore {
    /** The rule families run: WCAG 2.0/2.1 levels A and AA, color-contrast among them. */
    static final List<String> TAGS = List.of("wcag2a", "wcag2aa", "wcag21a", "wcag21aa");
    private static String source;

    private AxeCore() {
    }

    private static synchronized String source() throws IOException {
        if (source == null) {
            String configured = System.getProperty("mpfl.axe", System.getenv().getOrDefault("MPFL_AXE", ""));
            Path file = configured.isBlank() ? null : Path.of(configured);
            if (file == null || !Files.isRegularFile(file)) {
                throw new AssertionError("axe-core's axe.min.js not found (-Dmpfl.axe or MPFL_AXE: '" + configured + "'); install it with"
                        + " .ci/run, or: npm install --prefix ~/.cache/mpfl/axe-core-VERSION axe-core@VERSION, VERSION being the"
                        + " parent POM's axe-core.version (Failsafe is given .../node_modules/axe-core/axe.min.js)");
            }
            source = Files.readString(file, StandardCharsets.UTF_8);
        }
        return source;
    }

    /**
     * axe's violations on the current page, one line each (rule, impact, element, axe's summary), after
     * checking that the color-contrast rule looked at more than ten elements (so an empty list means the
     * page's texts passed, not that nothing was seen).
     */
    @SuppressWarnings("unchecked")
    static List<String> violations(HeadlessChromium browser) throws IOException {
        browser.script(source());
        // a whole page's rules take seconds on a loaded 2-core machine: 120 s, not the browser's usual 10 s
        browser.driver().manage().timeouts().scriptTimeout(Duration.ofSeconds(120));
        Map<String, Object> result;
        try {
            result = (Map<String, Object>) browser.asyncScript(
                "const done = arguments[arguments.length - 1];"
                + "axe.run(document, {runOnly: {type: 'tag', values: arguments[0]}})"
                + ".then(r => done({contrastChecked: (r.passes.find(p => p.id === 'color-contrast') || {nodes: []}).nodes.length"
                + "    + (r.violations.find(p => p.id === 'color-contrast') || {nodes: []}).nodes.length,"
                + "  violations: r.violations.flatMap(v => v.nodes.map(n => v.id + ' (' + v.impact + ') ' + n.target.join(' ')"
                + "    + ': ' + n.failureSummary.replace(/\\s+/g, ' ')))}))"
                + ".catch(e => done({error: String(e)}))", TAGS);
        } finally {
            browser.driver().manage().timeouts().scriptTimeout(HeadlessChromium.SCRIPT_TIMEOUT);
        }
        assertTrue(result.get("error") == null, "axe-core ran: " + result.get("error"));
        assertTrue(((Number) result.get("contrastChecked")).longValue() > 10, "axe's color-contrast saw the page's texts: " + result);
        return new ArrayList<>((List<String>) result.get("violations"));
    }
}
