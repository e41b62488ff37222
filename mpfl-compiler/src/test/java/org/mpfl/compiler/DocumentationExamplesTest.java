package org.mpfl.compiler;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.mpfl.fixtures.InlineExpectations;
import org.mpfl.ir.semantics.CollectiveAlgorithms;

/**
 * Every MPFL example of the documentation — a fenced block opened with {@code ```xml mpfl} in
 * {@code docs/*.md} — is a complete document whose diagnostics are exactly those written at its end,
 * the way every fixture carries them ({@link InlineExpectations}, docs/fixtures.md): line numbers count
 * from the block's first line. Library paths are not resolved (examples have no files next to them).
 */
class DocumentationExamplesTest {
    static final Path DOCS = Paths.get("../docs");
    static final List<String> DOCUMENTS = List.of("language-reference.md", "tutorial.md", "compiler-ir.md", "fixtures.md");

    record Example(String document, int line, String text) {
    }

    static List<Example> examples(Path markdown) throws IOException {
        List<Example> examples = new ArrayList<>();
        List<String> lines = Files.readAllLines(markdown, StandardCharsets.UTF_8);
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).strip().equals("```xml mpfl")) {
                int start = i + 1;
                StringBuilder text = new StringBuilder();
                for (i = start; i < lines.size() && !lines.get(i).strip().equals("```"); i++) {
                    text.append(lines.get(i)).append('\n');
                }
                examples.add(new Example(markdown.getFileName().toString(), start + 1, text.toString()));
            }
        }
        return examples;
    }

    @TestFactory
    Stream<DynamicTest> everyDocumentedExampleChecksAsDocumented() throws IOException {
        List<Example> all = new ArrayList<>();
        for (String document : DOCUMENTS) {
            all.addAll(examples(DOCS.resolve(document)));
        }
        assertTrue(all.size() >= 10, "examples found: " + all.size());
        return all.stream().map(example -> DynamicTest.dynamicTest(example.document() + ":" + example.line(), () -> {
            InlineExpectations expectations = new InlineExpectations(example.text());
            MpflCompiler compiler = expectations.typesOnly() ? new MpflCompiler(List.of()) : new MpflCompiler();
            MpflCompiler.CheckResult result = compiler.check(example.text().getBytes(StandardCharsets.UTF_8), "example.mpfl.xml",
                    null, expectations.params());
            String mismatch = expectations.mismatch(result.diagnostics().sorted());
            if (mismatch != null) {
                fail("example at docs/" + example.document() + ":" + example.line() + " (lines below count from the block's first line):\n"
                        + mismatch);
            }
        }));
    }

    /**
     * The reference's table of collective algorithms is the table the compiler and the runtime use
     * ({@link CollectiveAlgorithms}): a row per operation, its algorithms in order, its aliases sorted.
     */
    @org.junit.jupiter.api.Test
    void referenceListsTheAlgorithmsOfEveryCollectiveAsTheTableHasThem() throws IOException {
        List<String> lines = Files.readAllLines(DOCS.resolve("language-reference.md"), StandardCharsets.UTF_8);
        List<String> wrong = new ArrayList<>();
        for (CollectiveAlgorithms operation : CollectiveAlgorithms.values()) {
            String row = algorithmRow(operation);
            String prefix = "| `" + operation.element() + "` | `";
            List<String> documented = lines.stream().filter(l -> l.startsWith(prefix) && l.contains("|") && !l.contains("`root`")
                    && !l.contains("`data`")).toList();
            if (!documented.equals(List.of(row))) {
                wrong.add("expected the row\n" + row + "\nfound " + documented);
            }
        }
        assertTrue(wrong.isEmpty(), "docs/language-reference.md, section 5.4, differs from CollectiveAlgorithms:\n"
                + String.join("\n", wrong));
    }

    private static String algorithmRow(CollectiveAlgorithms operation) {
        String algorithms = String.join(", ", operation.algorithms().stream().map(a -> "`" + a + "`").toList());
        String aliases = String.join(", ", new java.util.TreeMap<>(operation.aliases()).entrySet().stream()
                .map(e -> "`" + e.getKey() + "` = `" + e.getValue() + "`").toList());
        return "| `" + operation.element() + "` | " + algorithms + " | " + (aliases.isEmpty() ? "—" : aliases) + " |";
    }

    @org.junit.jupiter.api.Test
    void referenceNamesEveryElementAttributeTypeFunctionAndOperator() throws IOException {
        String reference = Files.readString(DOCS.resolve("language-reference.md"), StandardCharsets.UTF_8);
        List<String> missing = new ArrayList<>();
        for (String element : org.mpfl.compiler.parse.ElementCatalog.elementNames()) {
            if (!reference.contains("`" + element + "`")) {
                missing.add("element " + element);
            }
            for (String attribute : org.mpfl.compiler.parse.ElementCatalog.rule(element).allAttributes()) {
                if (!reference.contains("`" + attribute + "`")) {
                    missing.add("attribute " + attribute + " of " + element);
                }
            }
        }
        for (org.mpfl.ir.MpflType type : org.mpfl.ir.MpflType.values()) {
            if (!reference.contains("`" + type.spelling() + "`")) {
                missing.add("type " + type);
            }
        }
        for (org.mpfl.ir.Builtin function : org.mpfl.ir.Builtin.values()) {
            if (!reference.contains("`" + function.functionName() + "(")) {
                missing.add("function " + function.functionName());
            }
        }
        if (!reference.contains("`c ? a : b`")) {
            missing.add("operator ?:");
        }
        for (String operator : List.of("||", "or", "&&", "and", "==", "!=", "eq", "ne", "<", "<=", ">", ">=", "lt", "le",
                "gt", "ge", "+", "-", "*", "/", "%", "!", "not")) {
            if (!reference.contains("`" + operator + "`") && !reference.contains("`" + operator.replace("|", "\\|") + "`")) {
                missing.add("operator " + operator);
            }
        }
        assertTrue(missing.isEmpty(), "the language reference does not mention: " + missing);
    }
}
