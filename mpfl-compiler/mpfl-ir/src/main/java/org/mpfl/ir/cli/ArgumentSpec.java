package org.mpfl.ir.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.mpfl.ir.spelling.Suggestions;

/**
 * What one {@code mpflc} command accepts, declared once: its options ({@code --name VALUE} or
 * {@code --name=VALUE}, flags, repeatable options, short aliases such as {@code -o}) with their defaults
 * and help, and its positional arguments. {@link #parse} turns a command line into {@link Arguments}
 * or a {@link UsageException} naming the offending word; {@code --help}/{@code -h} anywhere before
 * {@code --} ends parsing with {@link HelpRequested} carrying {@link #usage()}. Every command parses
 * its words through one of these, so every command reads flags the same way.
 */
public final class ArgumentSpec {
    /** How an option takes its value. */
    enum Kind { FLAG, VALUE, REPEATABLE, REST }

    /** One declared option. */
    record Option(String name, Kind kind, String metavar, String defaultValue, String help) {
    }

    /** One declared positional argument; {@code many} takes every remaining one. */
    record Positional(String name, boolean required, boolean many, String help) {
    }

    private final String command;
    private final String summary;
    private final Map<String, Option> options = new LinkedHashMap<>();
    private final Map<String, String> aliases = new LinkedHashMap<>();
    private final List<Positional> positionals = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();

    private ArgumentSpec(String command, String summary) {
        this.command = command;
        this.summary = summary;
    }

    /** The arguments of {@code mpflc COMMAND}; {@code summary} is the first line of its usage. */
    public static ArgumentSpec of(String command, String summary) {
        return new ArgumentSpec(command, summary);
    }

    /** A flag: {@code --name} alone, no value. */
    public ArgumentSpec flag(String name, String help) {
        return add(new Option(name, Kind.FLAG, null, null, help));
    }

    /** An option with a value ({@code --name VALUE} or {@code --name=VALUE}), given at most once, no default. */
    public ArgumentSpec value(String name, String metavar, String help) {
        return add(new Option(name, Kind.VALUE, metavar, null, help));
    }

    /** An option with a value and the default used when it is not given. */
    public ArgumentSpec value(String name, String metavar, String defaultValue, String help) {
        return add(new Option(name, Kind.VALUE, metavar, defaultValue, help));
    }

    /** An option that may be given several times; its values in order ({@link Arguments#values}). */
    public ArgumentSpec repeatable(String name, String metavar, String help) {
        return add(new Option(name, Kind.REPEATABLE, metavar, null, help));
    }

    /** An option after which every word belongs to something else ({@link Arguments#rest}), e.g. {@code --run FILE …}. */
    public ArgumentSpec rest(String name, String metavar, String help) {
        return add(new Option(name, Kind.REST, metavar, null, help));
    }

    /** Another spelling of a declared option, e.g. {@code -o} for {@code --output}. */
    public ArgumentSpec alias(String alias, String name) {
        if (!options.containsKey(name)) {
            throw new IllegalArgumentException("alias " + alias + " of undeclared option " + name);
        }
        aliases.put(alias, name);
        return this;
    }

    /** A positional argument that must be given. */
    public ArgumentSpec positional(String name, String help) {
        positionals.add(new Positional(name, true, false, help));
        return this;
    }

    /** A positional argument that may be left out. */
    public ArgumentSpec optionalPositional(String name, String help) {
        positionals.add(new Positional(name, false, false, help));
        return this;
    }

    /** Any number of positional arguments (the last declared). */
    public ArgumentSpec positionals(String name, String help) {
        positionals.add(new Positional(name, false, true, help));
        return this;
    }

    /** A line of text after the options in the usage (how options combine, where to read more). */
    public ArgumentSpec note(String text) {
        notes.add(text);
        return this;
    }

    /** The options of another declaration (shared option groups, e.g. TLS or the peers' options) added to these. */
    public ArgumentSpec with(java.util.function.UnaryOperator<ArgumentSpec> group) {
        return group.apply(this);
    }

    private ArgumentSpec add(Option o) {
        if (!o.name().startsWith("-") || o.name().equals("--help") || o.name().equals("-h")) {
            throw new IllegalArgumentException("not an option name: " + o.name());
        }
        if (options.putIfAbsent(o.name(), o) != null) {
            throw new IllegalArgumentException("option declared twice: " + o.name());
        }
        return this;
    }

    /** The command's name, as after {@code mpflc}. */
    public String command() {
        return command;
    }

    /**
     * Parses a command line (the words after the command's name).
     *
     * @throws HelpRequested  when {@code --help} or {@code -h} is among the options
     * @throws UsageException naming the unknown option, the option without its value, the flag given a
     *                        value, the option given twice, the missing or unexpected positional argument
     */
    public Arguments parse(List<String> words) throws UsageException {
        Map<String, List<String>> values = new LinkedHashMap<>();
        List<String> given = new ArrayList<>();
        List<String> rest = null;
        boolean onlyPositionals = false;
        for (int i = 0; i < words.size(); i++) {
            String w = words.get(i);
            if (onlyPositionals || !w.startsWith("-") || w.equals("-")) {
                given.add(w);
                continue;
            }
            if (w.equals("--")) {
                onlyPositionals = true;
                continue;
            }
            if (w.equals("--help") || w.equals("-h")) {
                throw new HelpRequested(usage());
            }
            int eq = w.indexOf('=');
            String name = eq > 0 ? w.substring(0, eq) : w;
            String inline = eq > 0 ? w.substring(eq + 1) : null;
            Option o = options.get(aliases.getOrDefault(name, name));
            if (o == null && !w.startsWith("--")) {
                // a run or domain ID is base64url and may begin with '-': a single-dash word that names
                // no declared option is an argument (mpflc status -Xy3…), as in getopt after its options
                given.add(w);
                continue;
            }
            if (o == null) {
                throw new UsageException("unknown option " + name + Suggestions.didYouMean(name, options.keySet())
                        + " (" + helpHint() + ")");
            }
            List<String> seen = values.computeIfAbsent(o.name(), k -> new ArrayList<>());
            switch (o.kind()) {
                case FLAG -> {
                    if (inline != null) {
                        throw new UsageException(name + " takes no value, got '" + w + "'");
                    }
                    if (!seen.isEmpty()) {
                        // as a valued option given twice: a doubled flag is a slip (or two scripts' lines joined), not a wish
                        throw new UsageException(o.name() + " given twice");
                    }
                    seen.add("true");
                }
                case REST -> {
                    rest = new ArrayList<>();
                    if (inline != null) {
                        rest.add(inline);
                    }
                    rest.addAll(words.subList(i + 1, words.size()));
                    i = words.size();
                }
                case VALUE, REPEATABLE -> {
                    String v = inline;
                    if (v == null) {
                        if (i + 1 >= words.size()) {
                            throw new UsageException(name + " needs a value (" + name + " " + o.metavar() + ")");
                        }
                        v = words.get(++i);
                    }
                    if (o.kind() == Kind.VALUE && !seen.isEmpty()) {
                        throw new UsageException(name + " given twice ('" + seen.get(0) + "' and '" + v + "')");
                    }
                    seen.add(v);
                }
                default -> throw new IllegalStateException(o.kind().toString());
            }
        }
        values.values().removeIf(List::isEmpty);
        return new Arguments(this, values, positionals(given), rest);
    }

    private Map<String, List<String>> positionals(List<String> given) throws UsageException {
        Map<String, List<String>> out = new LinkedHashMap<>();
        int next = 0;
        for (Positional p : positionals) {
            if (p.many()) {
                out.put(p.name(), List.copyOf(given.subList(next, given.size())));
                next = given.size();
            } else if (next < given.size()) {
                out.put(p.name(), List.of(given.get(next++)));
            } else if (p.required()) {
                throw new UsageException("missing " + p.name() + " (" + helpHint() + ")");
            }
        }
        if (next < given.size()) {
            throw new UsageException("unexpected argument" + (given.size() - next == 1 ? " '" : "s '")
                    + String.join("' '", given.subList(next, given.size())) + "' (" + helpHint() + ")");
        }
        return out;
    }

    private String helpHint() {
        return "see mpflc " + command + " --help";
    }

    Option option(String name) {
        Option o = options.get(name);
        if (o == null) {
            throw new IllegalArgumentException("mpflc " + command + " declares no option " + name);
        }
        return o;
    }

    boolean declaresPositional(String name) {
        return positionals.stream().anyMatch(p -> p.name().equals(name));
    }

    /** The usage text: synopsis, summary, every option with its value, default and help, and the notes. */
    public String usage() {
        StringBuilder b = new StringBuilder("usage: mpflc ").append(command);
        for (Positional p : positionals) {
            b.append(' ').append(p.required() ? p.name() : "[" + p.name() + (p.many() ? "]..." : "]"));
        }
        if (!options.isEmpty()) {
            b.append(" [OPTIONS]");
        }
        b.append('\n').append(summary).append('\n');
        List<String[]> rows = new ArrayList<>();
        for (Positional p : positionals) {
            if (p.help() != null) {
                rows.add(new String[] {p.name(), p.help()});
            }
        }
        for (Option o : options.values()) {
            StringBuilder left = new StringBuilder();
            aliases.forEach((alias, target) -> {
                if (target.equals(o.name())) {
                    left.append(alias).append(", ");
                }
            });
            left.append(o.name());
            if (o.metavar() != null) {
                left.append(' ').append(o.metavar());
            }
            String help = o.help() + (o.defaultValue() != null ? " (default " + o.defaultValue() + ")" : "")
                    + (o.kind() == Kind.REPEATABLE ? " (repeatable)" : "");
            rows.add(new String[] {left.toString(), help});
        }
        rows.add(new String[] {"-h, --help", "this text"});
        int width = Math.min(32, rows.stream().mapToInt(r -> r[0].length()).max().orElse(0));
        b.append(positionals.isEmpty() && options.isEmpty() ? "" : "\n");
        for (String[] r : rows) {
            b.append("  ").append(r[0]);
            b.append(r[0].length() > width ? "\n  " + " ".repeat(width) : " ".repeat(width - r[0].length()));
            b.append("  ").append(r[1]).append('\n');
        }
        for (String n : notes) {
            b.append('\n').append(n).append('\n');
        }
        return b.toString();
    }
}
