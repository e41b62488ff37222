package org.mpfl.samples.documents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.testing.StartsProcesses;
import org.mpfl.testing.docs.DocumentedCommands;

/**
 * The tutorial's section 8 (docs/tutorial.md) run as a reader types it: from the repository root, with a fresh
 * directory as {@code ~}, printing what its {@code # outputs:} comments promise. Here, in the samples module, because
 * it compiles {@code samples/heat2d}, whose document uses this module's jar: the README's build has made it before a
 * reader gets to section 8, and Maven has made it (package) before this module's integration tests. Section 9's
 * blocks are enactment-engine's {@code OwnKernelsTest}'s.
 */
@StartsProcesses
class TutorialCommandsTest {
    @Test
    void section8CompilesASampleAndRunsTheCompiledDirectory(@TempDir Path home) throws Exception {
        Path root = DocumentedCommands.root();
        String tutorial = Files.readString(root.resolve("docs/tutorial.md"));
        List<String> blocks = DocumentedCommands.shBlocks(DocumentedCommands.section(tutorial, "## 8. Compile and deploy"));
        assertEquals(1, blocks.size(), "section 8's commands: " + blocks);
        DocumentedCommands.Result r = DocumentedCommands.bash(blocks.get(0), root, Map.of("HOME", home.toString()));
        DocumentedCommands.assertRanAsDocumented(blocks.get(0), r);
        for (String written : List.of("plan.json", "solver.aar")) {
            assertTrue(Files.isRegularFile(home.resolve("heat2d.build").resolve(written)), written + ":\n" + r.output());
        }
    }
}
