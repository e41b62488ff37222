package org.mpfl.compiler.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.compiler.MpflCompiler;
import org.mpfl.ir.diag.Diagnostic;
import org.mpfl.testing.MpflcCall;

/**
 * The tutorial's misspelt Java class ("When a kernel fails"), in the project {@code mpflc new java} makes:
 * the warning is the one the tutorial quotes, and the right name checks clean. The jar holds the class's
 * entry only: the check reads entry names and never loads a class.
 */
class ActivityClassCheckTest {
    @Test
    void theTutorialsMisspeltJavaClassIsReportedAsItShows(@TempDir Path tmp) throws Exception {
        Path project = tmp.resolve("my-kernels");
        assertEquals(0, MpflcCall.run("new", "java", project.toString()).exit());
        Path jar = Files.createDirectories(project.resolve("target")).resolve("my-kernels.jar");
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file)) {
            out.putNextEntry(new JarEntry("org/example/my_kernels/SumOfSquares.class"));
            out.closeEntry();
        }
        Path document = project.resolve("my-kernels.mpfl.xml");
        assertEquals(List.of(), diagnostics(document), "the project as made checks clean");

        String written = Files.readString(document);
        Files.writeString(document, written.replace("my_kernels.SumOfSquares\"", "my_kernels.SumOfSquare\""));
        List<String> slip = diagnostics(document);
        assertEquals(1, slip.size(), slip.toString());
        String tutorial = Files.readString(Path.of("../docs/tutorial.md")).replaceAll("\\s+", " ");
        assertTrue(tutorial.contains("`" + slip.get(0) + "`"), "the tutorial quotes " + slip.get(0));
    }

    private static List<String> diagnostics(Path document) {
        return new MpflCompiler().check(document, document.getFileName().toString(), Map.of()).diagnostics().sorted()
                .stream().map(Diagnostic::toString).toList();
    }
}
