package org.mpfl.ir.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ArgumentSpecTest {
    private static final ArgumentSpec SPEC = ArgumentSpec.of("demo", "a command for the test")
            .positional("RUN", "the run")
            .value("--engine", "URL", "the engine")
            .value("--hosts", "N", "2", "how many hosts")
            .value("--output", "FILE", "where to write")
            .alias("-o", "--output")
            .value("--domain", "ID", "a domain id")
            .repeatable("--param", "NAME=VALUE", "a parameter")
            .flag("--json", "JSON output");

    private static Arguments parse(String... words) throws UsageException {
        return SPEC.parse(List.of(words));
    }

    @Test
    void valuesBothWaysDefaultsFlagsAliasesAndRepeats() throws UsageException {
        Arguments a = parse("r1", "--engine", "http://e", "--domain=-7x", "-o", "out.json", "--param", "a=1", "--param=b=2=3",
                "--json");
        assertEquals("r1", a.positional("RUN"));
        assertEquals("http://e", a.value("--engine"));
        assertEquals("-7x", a.value("--domain"), "--name=value takes a value that begins with '-'");
        assertEquals("out.json", a.value("--output"));
        assertEquals(List.of("a=1", "b=2=3"), a.values("--param"));
        assertEquals(Map.of("a", "1", "b", "2=3"), a.pairs("--param"));
        assertTrue(a.flag("--json"));
        assertEquals(2, a.intValue("--hosts"), "the declared default");
        assertFalse(a.has("--hosts"));
        assertEquals(5, parse("r", "--hosts", "5").intValue("--hosts"));
        assertNull(parse("r").value("--engine"));
    }

    /**
     * Run and domain IDs are base64url and begin with '-' once in 64: {@code mpflc status -Xy…} must
     * take the ID as the argument (CliTest failed once this way), while -o stays the declared alias.
     */
    @Test
    void aSingleDashWordThatNamesNoOptionIsAnArgument() throws UsageException {
        assertEquals("-Xy3_k", parse("-Xy3_k", "--json").positional("RUN"));
        assertEquals("-Xy3_k", parse("--json", "-Xy3_k", "-o", "f").positional("RUN"));
        assertEquals("f", parse("--json", "-Xy3_k", "-o", "f").value("--output"));
        UsageException doubleDash = assertThrows(UsageException.class, () -> parse("r", "--Xy3"));
        assertTrue(doubleDash.getMessage().startsWith("unknown option --Xy3"), doubleDash.getMessage());
    }

    @Test
    void errorsNameTheOption() {
        UsageException unknown = assertThrows(UsageException.class, () -> parse("r", "--engin", "x"));
        assertEquals("unknown option --engin (did you mean '--engine'?) (see mpflc demo --help)", unknown.getMessage());
        UsageException farOff = assertThrows(UsageException.class, () -> parse("r", "--frobnicate"));
        assertEquals("unknown option --frobnicate (see mpflc demo --help)", farOff.getMessage());
        UsageException missing = assertThrows(UsageException.class, () -> parse("r", "--engine"));
        assertEquals("--engine needs a value (--engine URL)", missing.getMessage());
        UsageException twice = assertThrows(UsageException.class, () -> parse("r", "--engine", "a", "--engine=b"));
        assertTrue(twice.getMessage().startsWith("--engine given twice"), twice.getMessage());
        // a flag as a valued option: it was taken twice without a word, which docs/cli.md says no option is
        UsageException flagTwice = assertThrows(UsageException.class, () -> parse("r", "--json", "--json"));
        assertEquals("--json given twice", flagTwice.getMessage());
        UsageException flagValue = assertThrows(UsageException.class, () -> parse("r", "--json=yes"));
        assertTrue(flagValue.getMessage().startsWith("--json takes no value"), flagValue.getMessage());
        UsageException number = assertThrows(UsageException.class, () -> parse("r", "--hosts", "two").intValue("--hosts"));
        assertEquals("--hosts must be a whole number, got 'two'", number.getMessage());
        UsageException positional = assertThrows(UsageException.class, () -> parse("--json"));
        assertTrue(positional.getMessage().startsWith("missing RUN"), positional.getMessage());
        UsageException extra = assertThrows(UsageException.class, () -> parse("r", "s"));
        assertTrue(extra.getMessage().startsWith("unexpected argument 's'"), extra.getMessage());
        UsageException pairTwice = assertThrows(UsageException.class,
                () -> parse("r", "--param", "laps=1", "--param", "laps=2").pairs("--param"));
        assertEquals("--param laps given twice ('laps=1' and 'laps=2')", pairTwice.getMessage());
        UsageException pair = assertThrows(UsageException.class, () -> parse("r", "--param", "novalue").pairs("--param"));
        assertEquals("--param needs NAME=VALUE, got 'novalue'", pair.getMessage());
        assertThrows(IllegalArgumentException.class, () -> parse("r").value("--undeclared"),
                "a command cannot read an option it does not declare");
    }

    @Test
    void helpCarriesTheGeneratedUsage() {
        HelpRequested help = assertThrows(HelpRequested.class, () -> parse("--engine", "x", "--help"));
        String usage = help.usage();
        assertTrue(usage.startsWith("usage: mpflc demo RUN [OPTIONS]\na command for the test\n"), usage);
        assertTrue(usage.contains("-o, --output FILE"), usage);
        assertTrue(usage.contains("how many hosts (default 2)"), usage);
        assertTrue(usage.contains("a parameter (repeatable)"), usage);
        assertThrows(HelpRequested.class, () -> parse("-h"));
    }

    @Test
    void restTakesEveryWordAfterIt() throws UsageException {
        ArgumentSpec spec = ArgumentSpec.of("outer", "s").value("--bind", "ADDR", "b").rest("--run", "FILE [OPTIONS]", "r");
        Arguments a = spec.parse(List.of("--bind", "h", "--run", "f.xml", "--bind", "--unknown"));
        assertEquals("h", a.value("--bind"));
        assertEquals(List.of("f.xml", "--bind", "--unknown"), a.rest());
        assertNull(spec.parse(List.of()).rest());
    }

    /** A command that parses its words with a spec, as every mpflc command does. */
    private record Demo() implements CliCommand {
        @Override
        public String name() {
            return "demo";
        }

        @Override
        public String summary() {
            return "demo";
        }

        @Override
        public int run(List<String> args, PrintStream out, PrintStream err) throws Exception {
            Arguments a = SPEC.parse(args);
            out.println(a.positional("RUN"));
            return 0;
        }
    }

    private static String[] run(String... words) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = Commands.run(List.of(new Demo()), List.of(words), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new String[] {String.valueOf(exit), out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8)};
    }

    @Test
    void commandsRunPrintsHelpWithExitZeroAndUsageErrorsWithExitTwo() {
        String[] help = run("demo", "--help");
        assertEquals("0", help[0]);
        assertTrue(help[1].startsWith("usage: mpflc demo RUN"), help[1]);
        assertEquals("", help[2]);
        String[] bad = run("demo", "r", "--nope");
        assertEquals("2", bad[0]);
        assertTrue(bad[2].startsWith("mpflc demo: unknown option --nope"), bad[2]);
        String[] ok = run("demo", "r1");
        assertEquals("0", ok[0]);
        assertEquals("r1\n", ok[1]);
    }
}
