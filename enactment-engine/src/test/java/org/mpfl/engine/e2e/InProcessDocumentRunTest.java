package org.mpfl.engine.e2e;

import java.util.List;

/**
 * {@link DocumentRunCases} with {@code mpflc run DOC --local --json}: no engine, no service host, the ranks
 * as threads of the command line's JVM (here the test's), messaging through the in-JVM transport. Threads
 * only, no child process. What only this path does itself is {@link InProcessRunEndsTest}'s.
 */
class InProcessDocumentRunTest extends DocumentRunCases {

    @Override
    List<String> where() {
        return List.of("--local");
    }
}
