package org.mpfl.bench;

import com.tngtech.archunit.core.domain.JavaClasses;
import org.junit.jupiter.api.Test;
import org.mpfl.architecture.ArchitectureRules;

/**
 * The benchmarks: the shared bench frame (options, plots, peers) at the bottom, the collective and
 * mediator benchmarks on it, the engine-driven workflow benchmarks on top. Documents are compiled
 * through the engine (mpfl-ir's compiler SPI), never by the compiler proper directly.
 */
class BenchArchitectureTest {
    private static final JavaClasses CLASSES = ArchitectureRules.moduleClasses();

    @Test
    void noPackageCycles() {
        ArchitectureRules.noPackageCycles("org.mpfl").check(CLASSES);
    }

    @Test
    void benchmarksDependDownwards() {
        ArchitectureRules.layers()
                .layer("workflow").definedBy("org.mpfl.bench.workflow..")
                .layer("collective").definedBy("org.mpfl.bench.collective..")
                .layer("mediator").definedBy("org.mpfl.bench.mediator..")
                .layer("frame").definedBy("org.mpfl.bench")
                .whereLayer("workflow").mayNotBeAccessedByAnyLayer()
                .whereLayer("collective").mayNotBeAccessedByAnyLayer()
                .whereLayer("mediator").mayOnlyBeAccessedByLayers("workflow")
                .whereLayer("frame").mayOnlyBeAccessedByLayers("workflow", "collective")
                .check(CLASSES);
    }

    @Test
    void benchmarksCompileThroughTheEngineOnly() {
        ArchitectureRules.usesNoCompiler().check(CLASSES);
    }
}
