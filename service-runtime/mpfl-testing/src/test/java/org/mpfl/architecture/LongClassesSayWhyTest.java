package org.mpfl.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No production class over 600 lines without a comment saying why it is long ("Over 600 lines …"): a long
 * class is a room that holds more than one thing until someone explains why it holds one. Scans every
 * module's {@code src/main/java} from the repository root, so a module added later is covered too.
 */
class LongClassesSayWhyTest {
    static final int LIMIT = 600;
    private static final Pattern REASON = Pattern.compile("(?i)\\b(over|about) \\d+ lines");

    @Test
    void everyProductionSourceOverTheLimitSaysWhy() throws IOException {
        Path root = repositoryRoot();
        List<String> unexplained;
        try (Stream<Path> files = Files.walk(root)) {
            unexplained = files.filter(LongClassesSayWhyTest::isProductionSource)
                    .filter(LongClassesSayWhyTest::isLongWithoutAReason)
                    .map(f -> root.relativize(f) + " (" + lines(f).size() + " lines)")
                    .sorted().toList();
        }
        assertEquals(List.of(), unexplained, "split these classes or say in a comment why they are over "
                + LIMIT + " lines (\"Over 600 lines on purpose: …\")");
    }

    @Test
    void theScanSeesTheProjectsSources() throws IOException {
        // guards the test above against passing by scanning nothing (a wrong root, a moved folder)
        try (Stream<Path> files = Files.walk(repositoryRoot())) {
            assertTrue(files.filter(LongClassesSayWhyTest::isProductionSource).count() > 200);
        }
    }

    private static boolean isProductionSource(Path file) {
        String path = file.toString().replace('\\', '/');
        return path.endsWith(".java") && path.contains("/src/main/java/") && !path.contains("/target/");
    }

    private static boolean isLongWithoutAReason(Path file) {
        List<String> lines = lines(file);
        return lines.size() > LIMIT && lines.stream().noneMatch(l -> REASON.matcher(l).find());
    }

    private static List<String> lines(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Surefire runs in the module's directory; the root is the nearest ancestor holding {@code .ci/run}. */
    private static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve(".ci").resolve("run"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no .ci/run above " + Path.of("").toAbsolutePath());
    }
}
