package org.mpfl.compiler.scaffold;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.mpfl.ir.cli.UsageException;

/**
 * One language's project: the templates under {@code org/mpfl/compiler/scaffold/LANGUAGE/} listed in that
 * directory's {@code files} index ({@code TEMPLATE TARGET} per line), written with the project's names, MPFL's
 * version and the plugin and JUnit versions MPFL's own build used (so the Java project resolves everything
 * offline from the repository that build filled), and the two commands that build and run the project.
 */
enum ProjectTemplate {
    JAVA("java", List.of("mvn -q -o package", "{{mpflc}} run {{name}}.mpfl.xml --local")),
    PYTHON("python", List.of("python3 -m unittest", "{{mpflc}} run {{name}}.mpfl.xml --local"));

    private static final String ROOT = "/org/mpfl/compiler/scaffold/";
    private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{([A-Za-z]+)}}");

    private final String language;
    private final List<String> commands;

    ProjectTemplate(String language, List<String> commands) {
        this.language = language;
        this.commands = commands;
    }

    static ProjectTemplate of(String language) throws UsageException {
        for (ProjectTemplate t : values()) {
            if (t.language.equals(language)) {
                return t;
            }
        }
        throw new UsageException("no project template for '" + language + "': java or python");
    }

    String language() {
        return language;
    }

    /** The README's two commands, run in the project's directory. */
    List<String> commands(ProjectNames names, String mpflc) {
        Map<String, String> values = values(names, mpflc);
        return commands.stream().map(c -> fill(c, values, "command")).toList();
    }

    /**
     * Writes the project into {@code dir} (created if absent).
     *
     * @return the files written, in the index's order
     * @throws UsageException when {@code dir} is a file or a directory with anything in it: nothing is written then,
     *                        and no file is ever replaced
     */
    List<Path> writeInto(Path dir, ProjectNames names, String mpflc) throws UsageException, IOException {
        requireNewOrEmpty(dir);
        Map<String, String> values = values(names, mpflc);
        values.put("commands", String.join("\n", commands(names, mpflc)));
        List<Path> written = new ArrayList<>();
        for (String line : resource(language + "/files").split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] parts = line.trim().split("\\s+");
            Path target = dir.resolve(fill(parts[1], values, parts[0]));
            Files.createDirectories(target.getParent());
            // CREATE_NEW: a file that appeared since the check above is never replaced
            Files.writeString(target, fill(resource(language + "/" + parts[0]), values, parts[0]), StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            written.add(target);
        }
        return written;
    }

    /** Refuses a file, or a directory with anything in it, as {@link #writeInto} does. */
    static void requireNewOrEmpty(Path dir) throws UsageException, IOException {
        if (Files.exists(dir) && !Files.isDirectory(dir)) {
            throw new UsageException(dir + " is a file; give a new or empty directory");
        }
        if (Files.isDirectory(dir)) {
            try (Stream<Path> entries = Files.list(dir)) {
                List<String> present = entries.map(p -> p.getFileName().toString()).sorted().toList();
                if (!present.isEmpty()) {
                    String named = String.join(", ", present.subList(0, Math.min(4, present.size())));
                    throw new UsageException(dir + " is not empty (it holds " + named + (present.size() > 4 ? ", …" : "")
                            + "); mpflc new never overwrites: give a new or empty directory");
                }
            }
        }
    }

    private static Map<String, String> values(ProjectNames names, String mpflc) {
        Map<String, String> values = new LinkedHashMap<>();
        Properties versions = new Properties();
        try {
            // the versions MPFL's build filled in (mpfl-compiler/pom.xml)
            versions.load(new StringReader(resource("versions.properties")));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        versions.forEach((k, v) -> values.put(k.toString(), v.toString()));
        values.put("name", names.workflow());
        values.put("module", names.module());
        values.put("package", names.javaPackage());
        values.put("packagePath", names.javaPackage().replace('.', '/'));
        values.put("mpflc", mpflc);
        return values;
    }

    /** Replaces every {@code {{key}}}; a key without a value is a template bug, named with its template. */
    static String fill(String text, Map<String, String> values, String template) {
        Matcher m = PLACEHOLDER.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String v = values.get(m.group(1));
            if (v == null || v.contains("${")) {
                throw new IllegalStateException("template " + template + ": no value for {{" + m.group(1) + "}}");
            }
            m.appendReplacement(out, Matcher.quoteReplacement(v));
        }
        m.appendTail(out);
        return out.toString();
    }

    private static String resource(String name) {
        try (InputStream in = ProjectTemplate.class.getResourceAsStream(ROOT + name)) {
            if (in == null) {
                throw new IllegalStateException("no template " + ROOT + name + " on the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
