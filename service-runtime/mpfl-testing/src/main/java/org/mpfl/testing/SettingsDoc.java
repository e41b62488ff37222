package org.mpfl.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.mpfl.ir.settings.SettingsTable;

/**
 * The check behind every component's settings-doc test (shared through the test-jar): the table of the
 * component's settings class in {@code docs/cli.md}, between {@code <!-- settings:NAME -->} and
 * {@code <!-- /settings:NAME -->}, is what {@link SettingsTable} generates now. With
 * {@code -Dmpfl.docs.write=true} it rewrites the table instead (how docs/cli.md says to regenerate).
 */
public final class SettingsDoc {
    private SettingsDoc() {
    }

    /** Fails when the component's table in docs/cli.md is not the generated one (or rewrites it when asked). */
    public static void assertCurrent(String component, Class<?> settingsClass) throws IOException {
        assertTrue(!SettingsTable.declaredBy(settingsClass).isEmpty(), settingsClass + " declares no Setting fields");
        Path doc = root().resolve("docs/cli.md");
        String text = Files.readString(doc, StandardCharsets.UTF_8);
        String open = "<!-- settings:" + component + " -->\n";
        String close = "<!-- /settings:" + component + " -->";
        int from = text.indexOf(open);
        int to = text.indexOf(close);
        assertTrue(from >= 0 && to > from, "docs/cli.md has no generated table for " + component + " (" + open.strip() + " … "
                + close + ")");
        String generated = SettingsTable.markdown(settingsClass);
        String current = text.substring(from + open.length(), to);
        if (Boolean.getBoolean("mpfl.docs.write") && !current.equals(generated)) {
            Files.writeString(doc, text.substring(0, from + open.length()) + generated + text.substring(to), StandardCharsets.UTF_8);
            return;
        }
        assertEquals(generated, current, "docs/cli.md's settings table of " + component + " is out of date with "
                + settingsClass.getName() + "; regenerate it: mvn -q test -Dtest='*SettingsDocTest'"
                + " -Dsurefire.failIfNoSpecifiedTests=false -Dmpfl.docs.write=true");
    }

    /** The source tree's root (the directory holding docs/). */
    static Path root() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("docs/cli.md")) && Files.isRegularFile(p.resolve("pom.xml"))) {
                return p;
            }
        }
        throw new IllegalStateException("not inside the MPFL source tree: " + Path.of("").toAbsolutePath());
    }
}
