package org.mpfl.runtime.servlet;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

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
        noClasses().should().dependOnClassesThat().resideInAnyPackage("org.mpfl.engine..", "org.mpfl.bench..",
                "org.mpfl.compiler.parse..", "org.mpfl.compiler.check..", "org.mpfl.compiler.gen..")
                .check(CLASSES);
    }
}
