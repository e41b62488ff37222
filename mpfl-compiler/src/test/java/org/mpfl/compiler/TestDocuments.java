package org.mpfl.compiler;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** The documents every test agrees must be valid: the valid fixtures and the samples of the repository. */
public final class TestDocuments {
    private TestDocuments() {
    }

    public static List<Path> valid() throws IOException {
        List<Path> documents = new ArrayList<>();
        try (Stream<Path> files = Files.walk(Paths.get("src/test/resources/fixtures/valid"))) {
            files.filter(p -> p.toString().endsWith(".mpfl.xml")).sorted().forEach(documents::add);
        }
        Path samples = Paths.get("../samples");
        if (Files.isDirectory(samples)) {
            try (Stream<Path> files = Files.walk(samples)) {
                files.filter(p -> p.toString().endsWith(".mpfl.xml") && !p.toString().contains("/target/")).sorted()
                        .forEach(documents::add);
            }
        }
        return documents;
    }
}
