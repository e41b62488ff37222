package org.mpfl.samples.documents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every sample document passes {@code mpflc check} with its defaults. */
class SamplesCheckTest {
    static List<Path> documents() throws Exception {
        return SampleDocuments.all();
    }

    @Test
    void allSamplesArePresent() throws Exception {
        assertEquals(List.of("coupling", "heat2d-py", "heat2d", "matmul", "moldyn", "pingpong", "pingstarpong", "ring"),
                documents().stream().map(p -> p.getParent().getFileName().toString()).toList());
    }

    /**
     * No errors, and no warnings except the one heat2d (and heat2d-py) must have: its loop runs until a computed residual
     * is small enough, which the communication check cannot follow.
     */
    @ParameterizedTest
    @MethodSource("documents")
    void checksClean(Path document) {
        assertTrue(SampleDocuments.hasCommand("check"), "mpflc --help lists no check command");
        SampleDocuments.Result result = SampleDocuments.mpflc(List.of("check", document.toString()));
        String report = "mpflc check " + document + ":\n" + result.err() + result.out();
        assertEquals(0, result.exitCode(), report);
        assertTrue(!result.err().contains("error:"), report);
        if (document.getFileName().toString().startsWith("heat2d")) {
            assertTrue(result.err().contains("warning:") && result.err().contains("depends on run-time data"), report);
        } else {
            assertTrue(!result.err().contains("warning:"), report);
        }
    }

    /** What ring's README says: if every rank received first, the check reports the deadlock cycle. */
    @Test
    void ringWhereEveryRankReceivesFirstDeadlocks(@TempDir Path directory) throws Exception {
        assertTrue(SampleDocuments.hasCommand("check"), "mpflc --help lists no check command");
        String ring = Files.readString(SampleDocuments.document("ring"));
        String sendFirst = "<send to=\"next\" data=\"0\"/>\n      <receive from=\"previous\" into=\"token\"/>";
        String receiveFirst = "<receive from=\"previous\" into=\"token\"/>\n      <send to=\"next\" data=\"0\"/>";
        assertTrue(ring.contains(sendFirst), "ring.mpfl.xml changed: update this test");
        Path deadlocking = directory.resolve("ring.mpfl.xml");
        Files.writeString(deadlocking, ring.replace(sendFirst, receiveFirst));

        SampleDocuments.Result result = SampleDocuments.mpflc(List.of("check", deadlocking.toString()));
        assertEquals(1, result.exitCode(), result.err());
        assertTrue(result.err().contains("deadlock"), result.err());
    }
}
