package org.mpfl.engine.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every {@code mpflc} command and every flag it accepts is documented: the README's command table has
 * a line for each command and {@code docs/cli.md} a section {@code ### mpflc NAME} that names each of
 * its flags. The commands and flags are read from the code, so a command or flag added without
 * documentation fails here with what is missing and where:
 * <ul>
 * <li>commands: every class listed in a module's {@code META-INF/services/org.mpfl.ir.cli.CliCommand},
 *     named by its {@code name()};</li>
 * <li>flags: in the command's source file and the classes of its module that it names (where it declares
 *     its options, e.g. {@code HostMain}, {@code PeerRuns}, {@code EngineOptions}), other commands excepted:
 *     every flag an {@code ArgumentSpec} declaration names ({@code .value("--port", …)},
 *     {@code .alias("-o", …)}), every whole-flag literal a parser compares with ({@code .equals("-o")}),
 *     the TLS flags of {@code TlsOptions::client}/{@code ::serving} and the {@code TlsSettings} option
 *     constants named; in the command's own file also every whole-flag literal.</li>
 * </ul>
 */
class CliDocumentationTest {
    private static final Pattern NAME = Pattern.compile("String\\s+name\\(\\)\\s*\\{\\s*return\\s+\"([^\"]+)\"\\s*;");
    /** A flag literal a parser compares with: in a {@code case} label (one or several) or an {@code equals(…)}. */
    private static final Pattern CASE_LABEL = Pattern.compile("case\\s+(\"-[^:>]*?)\\s*(->|:)");
    private static final Pattern EQUALS = Pattern.compile("equals\\(\"(--?[a-z][a-z0-9-]*)\"\\)");
    private static final Pattern FLAG_LITERAL = Pattern.compile("\"(--?[a-z][a-z0-9-]*)\"");
    /** An option an {@code ArgumentSpec} declares. */
    private static final Pattern DECLARATION = Pattern.compile(
            "\\.(?:flag|value|repeatable|rest|alias)\\(\\s*\"(--?[a-z][a-z0-9-]*)\"");
    /** The TLS option groups of {@code TlsOptions}: {@code client} is {@code --tls-ca}, {@code serving} every TLS flag. */
    private static final Pattern TLS_GROUP = Pattern.compile("TlsOptions::(client|serving)\\b");
    private static final Pattern TLS_CONSTANT = Pattern.compile("TlsSettings\\.([A-Z][A-Z_]*)\\b");

    /** One command as found in the code. */
    record Command(String name, String className, Path source, TreeSet<String> flags) {
    }

    static Path root() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isDirectory(p.resolve(".git")) && !Files.isRegularFile(p.resolve(".ci/run"))) {
            p = p.getParent();
        }
        if (p == null) {
            throw new IllegalStateException("not inside the MPFL source tree: " + Path.of("").toAbsolutePath());
        }
        return p;
    }

    static List<Command> commands(Path root) throws IOException {
        List<Command> out = new ArrayList<>();
        List<Path> registries;
        try (Stream<Path> s = Files.walk(root)) {
            registries = s.filter(p -> p.endsWith(Path.of("src/main/resources/META-INF/services/org.mpfl.ir.cli.CliCommand")))
                    .filter(p -> !p.toString().contains("/target/")).sorted().toList();
        }
        java.util.Set<String> commandClasses = new java.util.HashSet<>();
        for (Path registry : registries) {
            for (String line : Files.readAllLines(registry)) {
                commandClasses.add(line.replaceAll("#.*", "").trim());
            }
        }
        for (Path registry : registries) {
            Path javaRoot = registry.getParent().getParent().getParent().getParent().resolve("java");
            Map<String, Path> moduleClasses = new LinkedHashMap<>();
            try (Stream<Path> s = Files.walk(javaRoot)) {
                s.filter(p -> p.toString().endsWith(".java")).forEach(p -> {
                    String cls = javaRoot.relativize(p).toString().replace('/', '.').replaceAll("\\.java$", "");
                    if (!commandClasses.contains(cls)) {
                        moduleClasses.putIfAbsent(p.getFileName().toString().replace(".java", ""), p);
                    }
                });
            }
            for (String line : Files.readAllLines(registry)) {
                String cls = line.replaceAll("#.*", "").trim();
                if (cls.isEmpty()) {
                    continue;
                }
                Path source = javaRoot.resolve(cls.replace('.', '/') + ".java");
                String text = Files.readString(source, StandardCharsets.UTF_8);
                Matcher m = NAME.matcher(text);
                if (!m.find()) {
                    fail(root.relativize(source) + ": cannot read the command's name() (expected `return \"NAME\";`)");
                }
                TreeSet<String> flags = new TreeSet<>();
                flags(text, root, flags, true);
                // the helpers of its module that it names: the parser of `host` is HostMain, …
                Matcher used = Pattern.compile("\\b([A-Z]\\w*)(?:\\.|::)").matcher(text);
                java.util.Set<Path> helpers = new java.util.LinkedHashSet<>();
                while (used.find()) {
                    Path helper = moduleClasses.get(used.group(1));
                    if (helper != null && !helper.equals(source)) {
                        helpers.add(helper);
                    }
                }
                for (Path helper : helpers) {
                    flags(Files.readString(helper, StandardCharsets.UTF_8), root, flags, false);
                }
                out.add(new Command(m.group(1), cls, root.relativize(source), flags));
            }
        }
        return out;
    }

    static void flags(String text, Path root, TreeSet<String> flags, boolean commandFile) throws IOException {
        Matcher label = CASE_LABEL.matcher(text);
        while (label.find()) {
            Matcher literal = FLAG_LITERAL.matcher(label.group(1));
            while (literal.find()) {
                flags.add(literal.group(1));
            }
        }
        Matcher equals = EQUALS.matcher(text);
        while (equals.find()) {
            flags.add(equals.group(1));
        }
        Matcher declared = DECLARATION.matcher(text);
        while (declared.find()) {
            flags.add(declared.group(1));
        }
        if (commandFile) {
            Matcher literal = FLAG_LITERAL.matcher(text);
            while (literal.find()) {
                flags.add(literal.group(1));
            }
        }
        Matcher group = TLS_GROUP.matcher(text);
        while (group.find()) {
            flags.addAll(tlsOptions(root, group.group(1).equals("client") ? "CA" : "OPTIONS"));
        }
        Matcher tls = TLS_CONSTANT.matcher(text);
        while (tls.find()) {
            flags.addAll(tlsOptions(root, tls.group(1)));
        }
    }

    /** The flags a {@code TlsSettings} constant stands for (a string, or a list of such constants); none for others. */
    static List<String> tlsOptions(Path root, String constant) throws IOException {
        String text = Files.readString(root.resolve("service-runtime/mpiws-protocol/src/main/java/org/mpfl/protocol/tls/TlsSettings.java"));
        Map<String, String> strings = new LinkedHashMap<>();
        Matcher s = Pattern.compile("static final String ([A-Z_]+) = \"([a-z][a-z0-9-]*)\";").matcher(text);
        while (s.find()) {
            strings.put(s.group(1), s.group(2));
        }
        if (strings.containsKey(constant)) {
            return List.of("--" + strings.get(constant));
        }
        Matcher list = Pattern.compile("static final List<String> " + constant + " = List\\.of\\(([^)]*)\\);").matcher(text);
        List<String> out = new ArrayList<>();
        if (list.find()) {
            for (String name : list.group(1).split(",")) {
                String v = strings.get(name.trim());
                if (v != null) {
                    out.add("--" + v);
                }
            }
        }
        return out;
    }

    /** The text of section {@code ### mpflc NAME} of docs/cli.md, or null. */
    static String section(String doc, String command) {
        Matcher m = Pattern.compile("(?m)^### `?mpflc " + Pattern.quote(command) + "`?\\s*$").matcher(doc);
        if (!m.find()) {
            return null;
        }
        int end = doc.length();
        Matcher next = Pattern.compile("(?m)^#{1,3} ").matcher(doc);
        if (next.find(m.end())) {
            end = next.start();
        }
        return doc.substring(m.end(), end);
    }

    static boolean mentions(String text, String flag) {
        return Pattern.compile("(?<![\\w-])" + Pattern.quote(flag) + "(?![\\w-])").matcher(text).find();
    }

    @Test
    void everyCommandAndFlagInTheCodeIsInTheReadmeAndDocsCli() throws IOException {
        Path root = root();
        List<Command> commands = commands(root);
        assertTrue(commands.size() >= 15, "the scan found the commands: " + commands);
        String readme = Files.readString(root.resolve("README.md"));
        String cli = Files.readString(root.resolve("docs/cli.md"));
        List<String> missing = new ArrayList<>();
        for (Command c : commands) {
            if (!mentions(readme, "mpflc " + c.name())) {
                missing.add("README.md: the command table has no line for `mpflc " + c.name() + "` (" + c.className() + ")");
            }
            String section = section(cli, c.name());
            if (section == null) {
                missing.add("docs/cli.md: no section `### mpflc " + c.name() + "` for " + c.className() + " (flags " + c.flags() + ")");
                continue;
            }
            List<String> undocumented = c.flags().stream().filter(f -> !mentions(section, f)).toList();
            if (!undocumented.isEmpty()) {
                missing.add("docs/cli.md, section `### mpflc " + c.name() + "`: missing " + String.join(", ", undocumented)
                        + " (accepted by " + c.source() + ")");
            }
        }
        if (!missing.isEmpty()) {
            fail("mpflc commands or flags that the code has and the documentation does not:\n  " + String.join("\n  ", missing));
        }
    }

    @Test
    void theScanFindsFlagsOfEveryParsingStyle() throws IOException {
        Map<String, TreeSet<String>> byName = new LinkedHashMap<>();
        for (Command c : commands(root())) {
            byName.put(c.name(), c.flags());
        }
        // declarations in the command and in its module's helpers, TLS option groups, -o aliases
        assertTrue(byName.get("run").containsAll(List.of("--engine", "--local", "--sweep", "--parallel", "--tls-ca")), byName.get("run").toString());
        assertTrue(byName.get("up").containsAll(List.of("--tls-cert", "--tls-key", "--tls-keystore")), byName.get("up").toString());
        assertTrue(byName.get("host").containsAll(List.of("--credential-file", "--no-binary", "--tls-ca")), byName.get("host").toString());
        assertTrue(byName.get("host-token").contains("-o"), byName.get("host-token").toString());
        assertTrue(byName.get("check").containsAll(List.of("--param", "-p")), byName.get("check").toString());
        assertTrue(byName.get("status").containsAll(List.of("--engine", "--token-file", "--data", "--tls-ca", "--follow")),
                byName.get("status").toString());
        assertTrue(byName.get("slurm").containsAll(List.of("--run", "--host-arg", "--tls-keystore-password-file")),
                byName.get("slurm").toString());
        assertTrue(byName.get("trace").contains("--output"), byName.get("trace").toString());
        // and a section that lacks one is caught
        String doc = "### mpflc run\nuse --engine and --local\n### mpflc up\n--sweep\n";
        assertTrue(mentions(section(doc, "run"), "--engine") && !mentions(section(doc, "run"), "--sweep"));
        assertTrue(!mentions("--tls-ca-file", "--tls-ca"), "a longer flag does not document a shorter one");
    }
}
