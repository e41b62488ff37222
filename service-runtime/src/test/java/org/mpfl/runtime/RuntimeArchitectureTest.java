package org.mpfl.runtime;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import org.junit.jupiter.api.Test;
import org.mpfl.architecture.ArchitectureRules;

/**
 * The runtime's layers, bottom to top (below them all, the public API {@code org.mpfl.runtime.api} in its own
 * artifact, mpfl-api): rank monitoring; transports;
 * point-to-point messaging with its domains and rank registry; collectives; communicators with their
 * topologies; then the service host and, on top, the interpreter that runs a process's IR.
 */
class RuntimeArchitectureTest {
    private static final JavaClasses CLASSES = ArchitectureRules.moduleClasses();

    @Test
    void noPackageCycles() {
        ArchitectureRules.noPackageCycles("org.mpfl").check(CLASSES);
    }

    @Test
    void layersDependDownwards() {
        ArchitectureRules.layers()
                .layer("interpreter").definedBy("org.mpfl.runtime.interp..")
                .layer("host").definedBy("org.mpfl.runtime.host..")
                .layer("communicators").definedBy("org.mpfl.runtime.topology..")
                .layer("collectives").definedBy("org.mpfl.runtime.collective..")
                .layer("point-to-point").definedBy("org.mpfl.runtime.p2p..")
                .layer("transports").definedBy("org.mpfl.runtime.transport..")
                .layer("monitoring").definedBy("org.mpfl.runtime.monitor..")
                .whereLayer("interpreter").mayNotBeAccessedByAnyLayer()
                .whereLayer("host").mayOnlyBeAccessedByLayers("interpreter")
                .whereLayer("communicators").mayOnlyBeAccessedByLayers("interpreter", "host")
                .whereLayer("collectives").mayOnlyBeAccessedByLayers("interpreter", "host", "communicators")
                .whereLayer("point-to-point").mayOnlyBeAccessedByLayers("interpreter", "host", "communicators", "collectives")
                .whereLayer("transports").mayOnlyBeAccessedByLayers("interpreter", "host", "communicators", "collectives",
                        "point-to-point")
                .check(CLASSES);
    }

    /** The API's package lives in mpfl-api alone: no package spans two jars (the API's own test: ApiArchitectureTest). */
    @Test
    void thePublicApiPackageIsNotSplit() {
        noClasses().should().resideInAPackage("org.mpfl.runtime.api..")
                .because("org.mpfl.runtime.api is the mpfl-api artifact's; implementations live in the runtime's own packages")
                .check(CLASSES);
    }

    @Test
    void theRuntimeRunsCheckedIrAndNeverTheCompiler() {
        ArchitectureRules.usesNoCompiler("org.mpfl.engine..", "org.mpfl.bench..").check(CLASSES);
    }
}
