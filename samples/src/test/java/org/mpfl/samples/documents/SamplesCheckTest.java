package org.mpfl.samples.documents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every sample document passes {@code mpflc check} with its defaults. */
class SamplesCheckTest {
    static List<Path> documents() throws Exception {
        return SampleDocuments.all();
    }

    @Test
    void allSevenSamplesArePresent() throws Exception {
        assertEquals(List.of("coupling", "heat2d", "matmul", "moldyn", "pingpong", "pingstarpong", "ring"),
                documents().stream().map(p -> p.getParent().getFileName().toString()).toList());
    }

    @ParameterizedTest
    @MethodSource("documents")
    void checksClean(Path document) {
        assertTrue(SampleDocuments.hasCommand("check"), "mpflc has no check command in this build");
        SampleDocuments.Result result = SampleDocuments.mpflc(List.of("check", document.toString()));
        assertEquals(0, result.exitCode(), () -> "mpflc check " + document + ":\n" + result.err() + result.out());
        assertTrue(result.err().isBlank() || !result.err().contains("error:"), result.err());
    }
}
