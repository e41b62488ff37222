package org.mpfl.ir.settings;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The generator of {@code docs/cli.md}'s settings tables: every {@link Setting} a settings class
 * declares (its {@code public static final} fields), as a Markdown table, properties first, each
 * group by name. Each component's settings-doc test compares its table in the document with this
 * text and rewrites it when asked ({@code -Dmpfl.docs.write=true}).
 */
public final class SettingsTable {
    private SettingsTable() {
    }

    /** The settings a class declares. */
    public static List<Setting<?>> declaredBy(Class<?> settingsClass) {
        List<Setting<?>> out = new ArrayList<>();
        for (Field f : settingsClass.getDeclaredFields()) {
            int m = f.getModifiers();
            if (Modifier.isStatic(m) && Modifier.isPublic(m) && Setting.class.isAssignableFrom(f.getType())) {
                try {
                    out.add((Setting<?>) f.get(null));
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        out.sort(Comparator.comparing((Setting<?> s) -> s.source()).thenComparing(Setting::name));
        return out;
    }

    /** The Markdown table of the settings of {@code settingsClass}. */
    public static String markdown(Class<?> settingsClass) {
        StringBuilder b = new StringBuilder("| Setting | Default | What it does |\n|---|---|---|\n");
        for (Setting<?> s : declaredBy(settingsClass)) {
            b.append("| `").append(s.source() == Setting.Source.PROPERTY ? "-D" + s.name() : "$" + s.name()).append("` | ")
                    .append(cell(s.defaultText())).append(" | ").append(cell(s.description())).append(" |\n");
        }
        return b.toString();
    }

    private static String cell(String text) {
        return text == null || text.isEmpty() ? "—" : text.replace("|", "\\|").replace("\n", " ");
    }
}
