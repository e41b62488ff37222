package org.mpfl.architecture;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.Architectures;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The architecture rules every module checks its own production classes against (each module's
 * {@code ArchitectureTest}); shared through this module's test-jar so that there is one way to say
 * "no package cycles" and "dependencies point down". {@link ArchitectureRulesTest} proves that each
 * rule fails on a cycle and on an upward dependency.
 */
public final class ArchitectureRules {
    private ArchitectureRules() {
    }

    /**
     * The module's own production classes: {@code target/classes} below the module's directory
     * (where Surefire runs), never its tests and never the jars of the modules it depends on.
     */
    public static JavaClasses moduleClasses() {
        Path classes = Path.of("target", "classes");
        if (!Files.isDirectory(classes)) {
            throw new IllegalStateException("no " + classes.toAbsolutePath() + ": run the module's tests from its directory");
        }
        return new ClassFileImporter().importPath(classes);
    }

    /** No cycle between the packages below {@code rootPackage} (each package, at any depth, is one slice). */
    public static ArchRule noPackageCycles(String rootPackage) {
        return slices().matching(rootPackage + ".(**)").should().beFreeOfCycles()
                .because("dependencies between packages point one way (docs/architecture.md)");
    }

    /**
     * A layered architecture over the project's own packages only (JDK and library dependencies are
     * not its business); layers that hold no class yet are allowed.
     */
    public static Architectures.LayeredArchitecture layers() {
        return Architectures.layeredArchitecture()
                .consideringOnlyDependenciesInAnyPackage("org.mpfl..")
                .withOptionalLayers(true);
    }
}
