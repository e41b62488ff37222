package org.mpfl.runtime.collective;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.mpfl.compiler.check.typing.CollectiveAlgorithmNames;

/** The compiler warns about algorithm names it does not know; it must know exactly the runtime's. */
class AlgorithmNamesAgreeTest {
    @Test
    void compilerKnowsExactlyTheRuntimesAlgorithmNames() {
        Set<String> runtime = new TreeSet<>();
        runtime.add("auto");
        Collectives.ALGORITHMS.values().forEach(runtime::addAll);
        Collectives.ALIASES.values().forEach(aliases -> runtime.addAll(aliases.keySet()));
        assertEquals(runtime, new TreeSet<>(CollectiveAlgorithmNames.KNOWN));
    }
}
