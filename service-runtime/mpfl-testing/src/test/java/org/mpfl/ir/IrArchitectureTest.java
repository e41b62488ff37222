package org.mpfl.ir;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import org.junit.jupiter.api.Test;
import org.mpfl.architecture.ArchitectureRules;

/**
 * mpfl-ir: what the compiler hands to the runtime and the engine. Diagnostics at the bottom, then the
 * IR, its evaluation, the activity semantics that the static check and the interpreter share, the
 * plan model, and on top the compiler SPI (what the engine sees of the compiler: plans and archives
 * from a document); the command frame stands alone, with its settings and the "did you mean" hints
 * ({@code spelling}) it shares with the compiler's diagnostics. Nothing here may reach into
 * the compiler proper, the runtime or the engine (Maven keeps them off the class path; this keeps the
 * packages in order).
 *
 * <p>This test lives in mpfl-testing, which depends on mpfl-ir: mpfl-ir cannot depend on the module
 * that holds the shared rules, so its architecture is checked from here (on its jar).
 */
class IrArchitectureTest {
    private static final JavaClasses CLASSES = ArchitectureRules.classesOf(org.mpfl.ir.diag.Diagnostic.class);

    @Test
    void noPackageCycles() {
        ArchitectureRules.noPackageCycles("org.mpfl").check(CLASSES);
    }

    @Test
    void dependenciesPointDown() {
        ArchitectureRules.layers()
                .layer("compiler SPI").definedBy("org.mpfl.ir.spi..")
                .layer("plan").definedBy("org.mpfl.ir.plan..")
                .layer("semantics").definedBy("org.mpfl.ir.semantics..")
                .layer("evaluation").definedBy("org.mpfl.ir.eval..")
                .layer("ir").definedBy("org.mpfl.ir")
                .layer("diagnostics").definedBy("org.mpfl.ir.diag..")
                .layer("command frame").definedBy("org.mpfl.ir.cli..")
                .layer("settings").definedBy("org.mpfl.ir.settings..")
                .layer("spelling").definedBy("org.mpfl.ir.spelling..")
                .whereLayer("compiler SPI").mayNotBeAccessedByAnyLayer()
                .whereLayer("plan").mayOnlyBeAccessedByLayers("compiler SPI")
                .whereLayer("semantics").mayNotBeAccessedByAnyLayer()
                .whereLayer("evaluation").mayOnlyBeAccessedByLayers("plan", "semantics")
                .whereLayer("ir").mayOnlyBeAccessedByLayers("plan", "semantics", "evaluation")
                .whereLayer("diagnostics").mayOnlyBeAccessedByLayers("plan", "semantics", "evaluation", "ir")
                .whereLayer("command frame").mayNotBeAccessedByAnyLayer()
                .whereLayer("settings").mayOnlyBeAccessedByLayers("command frame")
                .whereLayer("spelling").mayOnlyBeAccessedByLayers("command frame")
                .check(CLASSES);
    }

    @Test
    void theCommandFrameUsesNothingOfTheCompiler() {
        noClasses().that().resideInAPackage("org.mpfl.ir.cli..")
                .should().dependOnClassesThat(resideInAPackage("org.mpfl..").and(resideOutsideOfPackage("org.mpfl.ir.cli.."))
                        .and(resideOutsideOfPackage("org.mpfl.ir.settings..")).and(resideOutsideOfPackage("org.mpfl.ir.spelling..")))
                .check(CLASSES);
    }
}
