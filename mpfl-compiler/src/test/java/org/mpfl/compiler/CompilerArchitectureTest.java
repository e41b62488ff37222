package org.mpfl.compiler;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.mpfl.architecture.ArchitectureRules;

/**
 * The compiler's steps depend downwards along the path document → AST → checked IR → plan →
 * services: parse builds the AST, check turns it into IR, comm analyses the IR (found through
 * ServiceLoader, so nothing names it), gen writes plan and archives, the {@link MpflCompiler} facade
 * runs the steps (and {@link MpflCompilerBridge} offers them to the engine through mpfl-ir's compiler
 * SPI), and the commands sit on top. {@code scaffold} ({@code mpflc new}) writes project templates and uses
 * none of the steps.
 */
class CompilerArchitectureTest {
    private static final JavaClasses CLASSES = ArchitectureRules.moduleClasses();

    @Test
    void noPackageCycles() {
        ArchitectureRules.noPackageCycles("org.mpfl").check(CLASSES);
    }

    @Test
    void stepsDependDownwards() {
        ArchitectureRules.layers()
                .layer("commands").definedBy("org.mpfl.compiler.commands..")
                .layer("facade").definedBy("org.mpfl.compiler")
                .layer("gen").definedBy("org.mpfl.compiler.gen..")
                .layer("comm").definedBy("org.mpfl.compiler.comm..")
                .layer("check").definedBy("org.mpfl.compiler.check..")
                .layer("parse").definedBy("org.mpfl.compiler.parse..")
                .layer("ast").definedBy("org.mpfl.compiler.ast..")
                .layer("scaffold").definedBy("org.mpfl.compiler.scaffold..")
                .whereLayer("commands").mayNotBeAccessedByAnyLayer()
                .whereLayer("scaffold").mayNotBeAccessedByAnyLayer()
                .whereLayer("facade").mayOnlyBeAccessedByLayers("commands")
                .whereLayer("gen").mayOnlyBeAccessedByLayers("commands", "facade")
                .whereLayer("comm").mayNotBeAccessedByAnyLayer()
                .whereLayer("check").mayOnlyBeAccessedByLayers("facade", "comm")
                .whereLayer("parse").mayOnlyBeAccessedByLayers("facade", "check")
                .whereLayer("ast").mayOnlyBeAccessedByLayers("facade", "check", "parse")
                .check(CLASSES);
    }

    @Test
    void theScaffoldUsesNoStepOfTheCompiler() {
        com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses().that().resideInAPackage("org.mpfl.compiler.scaffold..")
                .should().dependOnClassesThat().resideInAnyPackage("org.mpfl.compiler", "org.mpfl.compiler.ast..",
                        "org.mpfl.compiler.parse..", "org.mpfl.compiler.check..", "org.mpfl.compiler.comm..",
                        "org.mpfl.compiler.gen..", "org.mpfl.compiler.commands..")
                .check(CLASSES);
    }

    /**
     * The other modules' rules forbid the compiler proper by the package list in
     * {@link ArchitectureRules#COMPILER_PROPER}: a package added here without it would slip past them.
     */
    @Test
    void everyPackageOfTheCompilerIsKnownAsTheCompilerProper() {
        Set<String> unlisted = new TreeSet<>();
        for (JavaClass c : CLASSES) {
            if (!ArchitectureRules.isCompiling(c.getPackageName())) {
                unlisted.add(c.getPackageName());
            }
        }
        assertTrue(unlisted.isEmpty(), "packages of mpfl-compiler missing from ArchitectureRules.COMPILER_PROPER: " + unlisted);
    }
}
