package org.mpfl.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.mpfl.testing.MpflcCall;
import org.mpfl.ir.cli.CliCommand;

/**
 * Every {@code mpflc} command and every flag it accepts is documented: the README's command table has
 * a line for each command and {@code docs/cli.md} a section {@code ### mpflc NAME} that names each of
 * its flags. It lives in the benchmarks' module because this class path holds every module's commands
 * (compiler, runtime, engine, benchmarks). The flags come from the code itself: each command's usage
 * ({@code mpflc NAME --help}), which the one parser generates from the options the command declares,
 * so a flag cannot be accepted without being listed there. The commands are every class in a module's
 * {@code META-INF/services/org.mpfl.ir.cli.CliCommand} (all of which must be on this class path).
 */
class CliDocumentationTest {
    /** The flags at the start of an option line of a usage text: {@code "  -o, --output FILE   help"}. */
    private static final Pattern OPTION_LINE = Pattern.compile("^  (--?[a-z][a-z0-9-]*(?:, --?[a-z][a-z0-9-]*)*)(?: |$)");

    static Path root() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("docs/cli.md")) && Files.isRegularFile(p.resolve("README.md"))) {
                return p;
            }
        }
        throw new IllegalStateException("not inside the MPFL source tree: " + Path.of("").toAbsolutePath());
    }

    /** The command classes the modules' registries list. */
    static TreeSet<String> registered(Path root) throws IOException {
        TreeSet<String> out = new TreeSet<>();
        try (Stream<Path> s = Files.walk(root)) {
            for (Path registry : s.filter(p -> p.endsWith(Path.of("src/main/resources/META-INF/services/org.mpfl.ir.cli.CliCommand")))
                    .filter(p -> !p.toString().contains("/target/")).toList()) {
                for (String line : Files.readAllLines(registry)) {
                    String cls = line.replaceAll("#.*", "").trim();
                    if (!cls.isEmpty()) {
                        out.add(cls);
                    }
                }
            }
        }
        return out;
    }

    /** The flags a usage text lists ({@code --help}/{@code -h} aside: every command has them, docs/cli.md says so once). */
    static TreeSet<String> flags(String usage) {
        TreeSet<String> out = new TreeSet<>();
        for (String line : usage.split("\n")) {
            Matcher m = OPTION_LINE.matcher(line);
            if (m.find()) {
                for (String f : m.group(1).split(", ")) {
                    if (!f.equals("--help") && !f.equals("-h")) {
                        out.add(f);
                    }
                }
            }
        }
        return out;
    }

    /** The usage of a command as {@code mpflc NAME --help} prints it ({@code bench}: its p2p benchmark, whose flags it takes). */
    static String usage(String name) {
        List<String> words = new ArrayList<>(List.of(name.split(" ")));
        if (name.equals("bench")) {
            words.add("p2p");
        }
        words.add("--help");
        MpflcCall call = MpflcCall.run(words.toArray(String[]::new));
        assertEquals(0, call.exit(), words + ": " + call.err());
        return call.out();
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
        TreeSet<String> loaded = new TreeSet<>();
        List<CliCommand> commands = new ArrayList<>();
        ServiceLoader.load(CliCommand.class).forEach(c -> {
            loaded.add(c.getClass().getName());
            commands.add(c);
        });
        assertEquals(registered(root), loaded, "every registered command is on this class path");
        assertTrue(commands.size() >= 19, "the commands: " + loaded);
        String readme = Files.readString(root.resolve("README.md"));
        String cli = Files.readString(root.resolve("docs/cli.md"));
        List<String> missing = new ArrayList<>();
        for (CliCommand c : commands) {
            if (!mentions(readme, "mpflc " + c.name())) {
                missing.add("README.md: the command table has no line for `mpflc " + c.name() + "` (" + c.getClass().getName() + ")");
            }
            TreeSet<String> flags = flags(usage(c.name()));
            String section = section(cli, c.name());
            if (section == null) {
                missing.add("docs/cli.md: no section `### mpflc " + c.name() + "` for " + c.getClass().getName() + " (flags " + flags + ")");
                continue;
            }
            List<String> undocumented = flags.stream().filter(f -> !mentions(section, f)).toList();
            if (!undocumented.isEmpty()) {
                missing.add("docs/cli.md, section `### mpflc " + c.name() + "`: missing " + String.join(", ", undocumented)
                        + " (declared by " + c.getClass().getName() + ")");
            }
        }
        if (!missing.isEmpty()) {
            fail("mpflc commands or flags that the code has and the documentation does not:\n  " + String.join("\n  ", missing));
        }
    }

    @Test
    void theFlagsComeFromEachCommandsDeclarations() {
        assertTrue(flags(usage("run")).containsAll(List.of("--engine", "--local", "--sweep", "--parallel", "--tls-ca", "--param")),
                usage("run"));
        assertTrue(flags(usage("up")).containsAll(List.of("--tls-cert", "--tls-key", "--tls-keystore")));
        assertTrue(flags(usage("host")).containsAll(List.of("--credential-file", "--no-binary", "--tls-ca")));
        assertTrue(flags(usage("host-token")).containsAll(List.of("-o", "--output")));
        assertTrue(flags(usage("check")).containsAll(List.of("--param", "-p")));
        assertTrue(flags(usage("slurm")).containsAll(List.of("--run", "--host-arg", "--tls-keystore-password-file")));
        assertTrue(flags(usage("bench")).containsAll(List.of("--with-peers", "--save", "--from", "--quiet-wait")));
        assertTrue(!flags(usage("bench startup")).contains("--save"), "a flag another command declares is not this one's");
        // and a section that lacks one is caught
        String doc = "### mpflc run\nuse --engine and --local\n### mpflc up\n--sweep\n";
        assertTrue(mentions(section(doc, "run"), "--engine") && !mentions(section(doc, "run"), "--sweep"));
        assertTrue(!mentions("--tls-ca-file", "--tls-ca"), "a longer flag does not document a shorter one");
    }
}
