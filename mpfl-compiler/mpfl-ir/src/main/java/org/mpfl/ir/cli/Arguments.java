package org.mpfl.ir.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A command line parsed by its {@link ArgumentSpec}: option values (or their declared defaults), flags,
 * repeated values, positional arguments. Typed getters report a malformed value as a
 * {@link UsageException} naming the option. Asking for an option the spec does not declare is a
 * programming error ({@link IllegalArgumentException}), so a command cannot read a flag it does not
 * document.
 */
public final class Arguments {
    private final ArgumentSpec spec;
    private final Map<String, List<String>> values;
    private final Map<String, List<String>> positionals;
    private final List<String> rest;

    Arguments(ArgumentSpec spec, Map<String, List<String>> values, Map<String, List<String>> positionals, List<String> rest) {
        this.spec = spec;
        this.values = values;
        this.positionals = positionals;
        this.rest = rest;
    }

    /** Whether the option was given on the command line (its default does not count). */
    public boolean has(String option) {
        spec.option(option);
        return values.containsKey(option);
    }

    /** Whether the flag was given. */
    public boolean flag(String option) {
        if (spec.option(option).kind() != ArgumentSpec.Kind.FLAG) {
            throw new IllegalArgumentException(option + " is not a flag");
        }
        return values.containsKey(option);
    }

    /** The option's value, else its declared default, else {@code null}. */
    public String value(String option) {
        ArgumentSpec.Option o = spec.option(option);
        List<String> v = values.get(option);
        return v != null ? v.get(v.size() - 1) : o.defaultValue();
    }

    /** The option's value, else {@code fallback} (a default computed at run time). */
    public String value(String option, String fallback) {
        String v = value(option);
        return v != null ? v : fallback;
    }

    /** Every value of a repeatable option, in order; empty when not given. */
    public List<String> values(String option) {
        spec.option(option);
        return values.getOrDefault(option, List.of());
    }

    /** The value as a path, or {@code null}. */
    public Path path(String option) {
        String v = value(option);
        return v == null ? null : Path.of(v);
    }

    /** The value (or declared default) as an integer; {@code fallback} when neither. */
    public int intValue(String option, int fallback) throws UsageException {
        String v = value(option);
        if (v == null) {
            return fallback;
        }
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new UsageException(option + " must be a whole number, got '" + v + "'");
        }
    }

    /** The value (or declared default) as an integer that must be given one way or the other. */
    public int intValue(String option) throws UsageException {
        requireValue(option);
        return intValue(option, 0);
    }

    /** The value as an integer of at least {@code min}. */
    public int intAtLeast(String option, int min) throws UsageException {
        int n = intValue(option);
        if (n < min) {
            throw new UsageException(option + " must be at least " + min + ", got " + n);
        }
        return n;
    }

    /** The value (or declared default) as a long. */
    public long longValue(String option, long fallback) throws UsageException {
        String v = value(option);
        if (v == null) {
            return fallback;
        }
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new UsageException(option + " must be a whole number, got '" + v + "'");
        }
    }

    /** The value (or declared default) as a decimal number. */
    public double number(String option) throws UsageException {
        requireValue(option);
        String v = value(option);
        try {
            return Double.parseDouble(v.trim());
        } catch (NumberFormatException e) {
            throw new UsageException(option + " must be a number, got '" + v + "'");
        }
    }

    /** {@code 2,4,8} → [2, 4, 8], every element at least {@code min}. */
    public List<Integer> intList(String option, int min) throws UsageException {
        requireValue(option);
        String v = value(option);
        List<Integer> out = new ArrayList<>();
        for (String s : v.split(",")) {
            int n;
            try {
                n = Integer.parseInt(s.trim());
            } catch (NumberFormatException e) {
                throw new UsageException(option + " wants whole numbers separated by commas, got '" + v + "'");
            }
            if (n < min) {
                throw new UsageException(option + ": " + n + " is below " + min);
            }
            out.add(n);
        }
        return List.copyOf(out);
    }

    /** {@code a,b} → [a, b], each one of {@code allowed}. */
    public List<String> choices(String option, List<String> allowed) throws UsageException {
        requireValue(option);
        List<String> out = new ArrayList<>();
        for (String s : value(option).split(",")) {
            String t = s.trim();
            if (!allowed.contains(t)) {
                throw new UsageException(option + ": unknown value '" + t + "' (" + String.join(", ", allowed) + ")");
            }
            out.add(t);
        }
        return List.copyOf(out);
    }

    /**
     * The {@code NAME=VALUE} values of a repeatable option, by name in order.
     *
     * @throws UsageException for a value without {@code =}, with an empty name, or a name given twice
     */
    public Map<String, String> pairs(String option) throws UsageException {
        Map<String, String> out = new LinkedHashMap<>();
        for (String v : values(option)) {
            int eq = v.indexOf('=');
            if (eq <= 0) {
                throw new UsageException(option + " needs NAME=VALUE, got '" + v + "'");
            }
            String name = v.substring(0, eq).trim();
            String before = out.put(name, v.substring(eq + 1));
            if (before != null) {
                // as for an option given twice: which one was meant is not ours to guess
                throw new UsageException(option + " " + name + " given twice ('" + name + "=" + before + "' and '" + v + "')");
            }
        }
        return out;
    }

    /** A positional argument's value, or {@code null} for an optional one left out. */
    public String positional(String name) {
        if (!spec.declaresPositional(name)) {
            throw new IllegalArgumentException("mpflc " + spec.command() + " declares no positional " + name);
        }
        List<String> v = positionals.get(name);
        return v == null || v.isEmpty() ? null : v.get(0);
    }

    /** Every value of a {@link ArgumentSpec#positionals many-valued} positional. */
    public List<String> positionalList(String name) {
        if (!spec.declaresPositional(name)) {
            throw new IllegalArgumentException("mpflc " + spec.command() + " declares no positional " + name);
        }
        return positionals.getOrDefault(name, List.of());
    }

    /** The words after a {@link ArgumentSpec#rest rest} option, or {@code null} when it was not given. */
    public List<String> rest() {
        return rest == null ? null : List.copyOf(rest);
    }

    /** The options given on the command line with their last value, for helpers that take a map (TLS). */
    public Map<String, String> given() {
        Map<String, String> out = new LinkedHashMap<>();
        values.forEach((k, v) -> out.put(k, v.get(v.size() - 1)));
        return out;
    }

    private void requireValue(String option) throws UsageException {
        if (value(option) == null) {
            throw new UsageException(option + " is required");
        }
    }
}
