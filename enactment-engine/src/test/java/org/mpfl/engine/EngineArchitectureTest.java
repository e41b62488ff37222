package org.mpfl.engine;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import org.junit.jupiter.api.Test;
import org.mpfl.architecture.ArchitectureRules;

/**
 * The engine's layers, top to bottom: the command line and the local cluster; the composition root
 * ({@link Engine} wires everything, nothing below imports it); the REST layer, which only translates
 * HTTP to use cases; access (who may see and do what); workflow and run use cases; deployment; the registry and the run store; JSON.
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
                .layer("capacity").definedBy("org.mpfl.engine.capacity..")
                .layer("access").definedBy("org.mpfl.engine.access..")
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
                .whereLayer("capacity").mayOnlyBeAccessedByLayers("cli", "composition root", "rest")
                .whereLayer("access").mayOnlyBeAccessedByLayers("cli", "composition root", "rest")
                .whereLayer("workflow").mayOnlyBeAccessedByLayers("cli", "composition root", "rest")
                .whereLayer("run").mayOnlyBeAccessedByLayers("cli", "local", "composition root", "rest", "workflow", "capacity")
                .whereLayer("deploy").mayOnlyBeAccessedByLayers("composition root", "rest", "workflow", "run")
                .whereLayer("registry").mayOnlyBeAccessedByLayers("cli", "local", "composition root", "rest", "run", "deploy", "capacity")
                .whereLayer("store").mayOnlyBeAccessedByLayers("composition root", "rest", "access", "workflow", "run", "capacity")
                .check(CLASSES);
    }

    /**
     * The run service's rooms call downwards only (docs/architecture.md, "A run's path through the
     * engine"): the facade {@code RunService} → monitoring → (through {@code RunFaults}) the lifecycle →
     * placement → the shared parts below them, which call no room.
     */
    @Test
    void theRunServiceRoomsCallDownwardsOnly() {
        String facade = room("RunService");
        String monitor = room("RunMonitor");
        String lifecycle = room("RunLifecycle");
        String placer = room("RunPlacer");
        noClasses().that().haveNameMatching(monitor).should().dependOnClassesThat()
                .haveNameMatching(alternatives(facade, lifecycle, placer)).check(CLASSES);
        noClasses().that().haveNameMatching(lifecycle).should().dependOnClassesThat()
                .haveNameMatching(alternatives(facade, monitor)).check(CLASSES);
        noClasses().that().haveNameMatching(placer).should().dependOnClassesThat()
                .haveNameMatching(alternatives(facade, monitor, lifecycle, room("RunFaults"))).check(CLASSES);
        noClasses().that().haveNameMatching(alternatives(room("RunDomains"), room("RunJournal"), room("LiveRuns")))
                .should().dependOnClassesThat().haveNameMatching(alternatives(facade, monitor, lifecycle, placer, room("RunFaults")))
                .check(CLASSES);
    }

    /** A class of the run package and its nested classes, as a name pattern. */
    private static String room(String simpleName) {
        return "org\\.mpfl\\.engine\\.run\\." + simpleName + "(\\$.*)?";
    }

    private static String alternatives(String... patterns) {
        return "(" + String.join("|", patterns) + ")";
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
