package org.mpfl.protocol;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import org.junit.jupiter.api.Test;
import org.mpfl.architecture.ArchitectureRules;

/**
 * The protocol is what the engine and the hosts share: it stands on the JDK and Jackson alone (and mpfl-ir's
 * settings declaration and command-line parser, which stand on the JDK alone), so that the engine can speak to hosts without the
 * runtime (and Axis2) on its compile path. One exception: the launcher of in-JVM ranks ({@code protocol.launch}, for
 * {@code mpflc run --local}) takes the deployment plan as objects, which is the point of running ranks in the caller's JVM
 * (no JSON round trip of the programs); no other package of the protocol sees the plan.
 *
 * <p>This test lives in mpfl-testing, which depends on mpiws-protocol: the protocol cannot depend on
 * the module that holds the shared rules, so its architecture is checked from here (on its jar).
 */
class ProtocolArchitectureTest {
    private static final JavaClasses CLASSES = ArchitectureRules.classesOf(org.mpfl.protocol.tls.TlsSettings.class);

    @Test
    void noPackageCycles() {
        ArchitectureRules.noPackageCycles("org.mpfl").check(CLASSES);
    }

    @Test
    void usesNothingElseOfMpfl() {
        noClasses().should().dependOnClassesThat(resideInAPackage("org.mpfl..").and(resideOutsideOfPackage("org.mpfl.protocol.."))
                        .and(resideOutsideOfPackage("org.mpfl.ir.settings.."))
                        .and(resideOutsideOfPackage("org.mpfl.ir.cli.."))
                        .and(resideOutsideOfPackage("org.mpfl.ir.plan..")))
                .check(CLASSES);
    }

    @Test
    void onlyTheInJvmLauncherSeesThePlan() {
        noClasses().that().resideOutsideOfPackage("org.mpfl.protocol.launch..")
                .should().dependOnClassesThat().resideInAPackage("org.mpfl.ir.plan..")
                .check(CLASSES);
    }

    @Test
    void theLauncherIsAboveTheMessages() {
        noClasses().that().resideInAPackage("org.mpfl.protocol")
                .should().dependOnClassesThat().resideInAPackage("org.mpfl.protocol.launch..")
                .check(CLASSES);
    }
}
