package org.mpfl.war;

import com.tngtech.archunit.core.domain.JavaClasses;
import org.junit.jupiter.api.Test;
import org.mpfl.architecture.ArchitectureRules;

/**
 * The web application is glue between the servlet container and the runtime's service host: it uses
 * the runtime's host and the protocol, never the engine, the compiler proper or the benchmarks.
 */
class WarArchitectureTest {
    private static final JavaClasses CLASSES = ArchitectureRules.moduleClasses();

    @Test
    void noPackageCycles() {
        ArchitectureRules.noPackageCycles("org.mpfl").check(CLASSES);
    }

    @Test
    void usesTheHostNotTheEngineNorTheCompiler() {
        ArchitectureRules.usesNoCompiler("org.mpfl.engine..", "org.mpfl.bench..").check(CLASSES);
    }
}
