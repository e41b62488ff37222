package org.mpfl.engine.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.testing.StartsProcesses;

/**
 * The tutorial's commands (docs/tutorial.md) run as a reader types them: from the repository root, with a fresh
 * directory as {@code ~}, each block printing what its {@code # outputs:} comments promise. Section 9's blocks are
 * {@link OwnKernelsTest}'s.
 */
@StartsProcesses
class TutorialCommandsTest {
    @Test
    void section8CompilesASampleAndRunsTheCompiledDirectory(@TempDir Path home) throws Exception {
        String tutorial = Files.readString(OwnKernelsTest.root().resolve("docs/tutorial.md"));
        List<String> blocks = OwnKernelsTest.shBlocks(OwnKernelsTest.section(tutorial, "## 8. Compile and deploy"));
        assertEquals(1, blocks.size(), "section 8's commands: " + blocks);
        OwnKernelsTest.Result r = OwnKernelsTest.bash(blocks.get(0), OwnKernelsTest.root(), Map.of("HOME", home.toString()));
        OwnKernelsTest.assertRanAsDocumented(blocks.get(0), r);
        for (String written : List.of("plan.json", "solver.aar")) {
            assertTrue(Files.isRegularFile(home.resolve("heat2d.build").resolve(written)), written + ":\n" + r.output());
        }
    }
}
