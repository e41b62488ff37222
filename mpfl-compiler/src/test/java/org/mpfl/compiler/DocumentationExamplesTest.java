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
