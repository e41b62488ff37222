package org.mpfl.ir.settings;

import java.util.Optional;
import java.util.function.Function;

/**
 * One setting a component reads from outside its command line: a Java system property
 * ({@code -Dmpfl.…}) or an environment variable ({@code MPFL_…}), with its type, default and a one-line
 * description. Each component declares all of its settings as {@code public static final} fields of
 * one settings class, reads them only through these fields, and {@code docs/cli.md} lists them in a
 * table generated from those classes ({@link SettingsTable}).
 *
 * <p>A malformed number or boolean reads as the default, as {@link Long#getLong} does.
 *
 * @param <T> the value's type
 */
public final class Setting<T> {
    /** Where the value comes from. */
    public enum Source { PROPERTY, ENVIRONMENT }

    private final Source source;
    private final String name;
    private final T defaultValue;
    private final String defaultText;
    private final String description;
    private final Function<String, T> parse;

    private Setting(Source source, String name, T defaultValue, String defaultText, String description,
                    Function<String, T> parse) {
        this.source = source;
        this.name = name;
        this.defaultValue = defaultValue;
        this.defaultText = defaultText;
        this.description = description;
        this.parse = parse;
    }

    /** A whole-number system property with a fixed default. */
    public static Setting<Long> longProperty(String name, long defaultValue, String description) {
        return new Setting<>(Source.PROPERTY, name, defaultValue, String.valueOf(defaultValue), description, Setting::parseLong);
    }

    /** A whole-number system property whose default is computed where it is read ({@link #get(Object)}). */
    public static Setting<Long> longProperty(String name, String defaultText, String description) {
        return new Setting<>(Source.PROPERTY, name, null, defaultText, description, Setting::parseLong);
    }

    /** An {@code int} system property with a fixed default. */
    public static Setting<Integer> intProperty(String name, int defaultValue, String description) {
        return new Setting<>(Source.PROPERTY, name, defaultValue, String.valueOf(defaultValue), description, Setting::parseInt);
    }

    /** A boolean system property ({@code true}/{@code false}) with a fixed default. */
    public static Setting<Boolean> booleanProperty(String name, boolean defaultValue, String description) {
        return new Setting<>(Source.PROPERTY, name, defaultValue, String.valueOf(defaultValue), description, Setting::parseBoolean);
    }

    /** A text system property; {@code defaultValue} may be {@code null} (unset), described by {@code defaultText}. */
    public static Setting<String> textProperty(String name, String defaultValue, String defaultText, String description) {
        return new Setting<>(Source.PROPERTY, name, defaultValue, defaultText, description, Function.identity());
    }

    /** An environment variable; {@code defaultText} says what applies when it is unset. */
    public static Setting<String> environment(String name, String defaultText, String description) {
        return new Setting<>(Source.ENVIRONMENT, name, null, defaultText, description, Function.identity());
    }

    /**
     * This setting for one member of a family named with a placeholder in angle brackets, e.g.
     * {@code mpfl.collective.<op>.algorithm} for {@code bcast}.
     */
    public Setting<T> forMember(String member) {
        String concrete = name.replaceFirst("<[^>]+>", java.util.regex.Matcher.quoteReplacement(member));
        return new Setting<>(source, concrete, defaultValue, defaultText, description, parse);
    }

    /** The value given, parsed; empty when unset (or malformed). */
    public Optional<T> given() {
        String raw = raw();
        if (raw == null || (source == Source.ENVIRONMENT && raw.isBlank())) {
            return Optional.empty();
        }
        return Optional.ofNullable(parse.apply(raw));
    }

    /** The value given, else the declared default (which may be {@code null}). */
    public T get() {
        return given().orElse(defaultValue);
    }

    /** The value given, else {@code fallback} (a default computed where it is read). */
    public T get(T fallback) {
        return given().orElse(fallback);
    }

    /** The declared default ({@code null} when it is computed where the setting is read). */
    public T defaultValue() {
        return defaultValue;
    }

    /** The text as given, unparsed, or {@code null}. */
    public String raw() {
        return source == Source.PROPERTY ? System.getProperty(name) : System.getenv(name);
    }

    public Source source() {
        return source;
    }

    /** The property's or variable's name. */
    public String name() {
        return name;
    }

    /** The default as the documentation states it. */
    public String defaultText() {
        return defaultText;
    }

    public String description() {
        return description;
    }

    @Override
    public String toString() {
        return (source == Source.PROPERTY ? "-D" : "$") + name;
    }

    private static Long parseLong(String s) {
        try {
            return Long.parseLong(s.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static Integer parseInt(String s) {
        try {
            return Integer.parseInt(s.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static Boolean parseBoolean(String s) {
        String t = s.trim();
        return t.equalsIgnoreCase("true") ? Boolean.TRUE : t.equalsIgnoreCase("false") ? Boolean.FALSE : null;
    }
}
