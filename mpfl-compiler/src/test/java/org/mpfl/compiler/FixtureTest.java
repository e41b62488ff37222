package org.mpfl.compiler;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Runs every fixture under {@code src/test/resources/fixtures/**}{@code .mpfl.xml} through
 * {@code check} and compares the diagnostics with the expectations written inside it
 * ({@link FixtureExpectations}).
 */
class FixtureTest {
    static final Path FIXTURES = Paths.get("src/test/resources/fixtures");

    static List<Path> fixtures() throws IOException {
        try (Stream<Path> files = Files.walk(FIXTURES)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".mpfl.xml")).sorted().toList();
        }
    }

    @TestFactory
    Stream<DynamicTest> everyFixtureHasExactlyItsExpectedDiagnostics() throws IOException {
        List<Path> fixtures = fixtures();
        assertTrue(fixtures.size() > 15, "fixtures found: " + fixtures.size());
        return fixtures.stream().map(file -> DynamicTest.dynamicTest(FIXTURES.relativize(file).toString(), () -> {
            String text = new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
            FixtureExpectations expectations = new FixtureExpectations(text);
            MpflCompiler compiler = expectations.typesOnly() ? new MpflCompiler(List.of()) : new MpflCompiler();
            MpflCompiler.CheckResult result = compiler.check(file, file.getFileName().toString(), expectations.params());
            List<String> differences = expectations.differences(result.diagnostics().sorted());
            if (!differences.isEmpty()) {
                StringBuilder report = new StringBuilder(file + ":\n");
                differences.forEach(d -> report.append("  ").append(d).append('\n'));
                report.append("all diagnostics:\n");
                result.diagnostics().sorted().forEach(d -> report.append("  ").append(d.format()).append('\n'));
                fail(report.toString());
            }
        }));
    }
}
