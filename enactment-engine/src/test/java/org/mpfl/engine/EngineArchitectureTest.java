package org.mpfl.engine;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import org.junit.jupiter.api.Test;
import org.mpfl.architecture.ArchitectureRules;

/**
 * The engine's layers, top to bottom: the command line and the local cluster; the composition root
 * ({@link Engine} wires everything, nothing below imports it); the REST layer, which only translates
 * HTTP to use cases; workflow and run use cases; deployment; the registry and the run store; JSON.
 * The engine speaks to hosts through the protocol only, never through the runtime's classes, and
 * compiles documents through mpfl-ir's compiler SPI only (the compiler proper is found at run time).
 */
class EngineArchitectureTest {
    private static final JavaClasses CLASSES = ArchitectureRules.moduleClasses();

    @Test
    void noPackageCycles() {
        ArchitectureRules.noPackageCycles("org.mpfl").check(CLASSES);
    }

    @Test
    void layersDependDownwards() {
        ArchitectureRules.layers()
                .layer("cli").definedBy("org.mpfl.engine.cli..")
                .layer("local").definedBy("org.mpfl.engine.local..")
                .layer("composition root").definedBy("org.mpfl.engine")
                .layer("rest").definedBy("org.mpfl.engine.rest..")
                .layer("workflow").definedBy("org.mpfl.engine.workflow..")
                .layer("run").definedBy("org.mpfl.engine.run..")
                .layer("deploy").definedBy("org.mpfl.engine.deploy..")
                .layer("registry").definedBy("org.mpfl.engine.registry..")
                .layer("store").definedBy("org.mpfl.engine.store..")
                .layer("json").definedBy("org.mpfl.engine.json..")
                .whereLayer("cli").mayNotBeAccessedByAnyLayer()
                .whereLayer("local").mayOnlyBeAccessedByLayers("cli")
                .whereLayer("composition root").mayOnlyBeAccessedByLayers("cli", "local")
                .whereLayer("rest").mayOnlyBeAccessedByLayers("composition root")
                .whereLayer("workflow").mayOnlyBeAccessedByLayers("cli", "composition root", "rest")
                .whereLayer("run").mayOnlyBeAccessedByLayers("cli", "composition root", "rest", "workflow")
                .whereLayer("deploy").mayOnlyBeAccessedByLayers("composition root", "rest", "workflow", "run")
                .whereLayer("registry").mayOnlyBeAccessedByLayers("cli", "local", "composition root", "rest", "run", "deploy")
                .whereLayer("store").mayOnlyBeAccessedByLayers("composition root", "rest", "workflow", "run")
                .check(CLASSES);
    }

    @Test
    void theEngineReachesHostsThroughTheProtocolOnly() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage("org.mpfl.runtime..", "org.mpfl.bench..")
                .check(CLASSES);
    }

    @Test
    void theEngineReachesTheCompilerThroughItsSpiOnly() {
        ArchitectureRules.usesNoCompiler().check(CLASSES);
    }
}
