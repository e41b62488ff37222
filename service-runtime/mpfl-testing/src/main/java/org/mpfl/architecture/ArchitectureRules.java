package org.mpfl.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.PackageMatchers;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.Architectures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * The architecture rules every module checks its own production classes against (each module's
 * {@code ArchitectureTest}); shared through mpfl-testing so that there is one way to say
 * "no package cycles" and "dependencies point down". {@link ArchitectureRulesTest} proves that each
 * rule fails on a cycle and on an upward dependency.
 */
public final class ArchitectureRules {
    /**
     * The compiler proper (mpfl-compiler's packages, as ArchUnit package patterns): the parser, the
     * checks, the generators, the facade and its commands. What other modules need of the compiler is
     * in mpfl-ir (IR, plan, diagnostics, the command frame, the compiler SPI {@code org.mpfl.ir.spi});
     * {@code CompilerArchitectureTest} proves that every package of mpfl-compiler is listed here.
     */
    public static final List<String> COMPILER_PROPER = List.of("org.mpfl.compiler", "org.mpfl.compiler.ast..",
            "org.mpfl.compiler.parse..", "org.mpfl.compiler.check..", "org.mpfl.compiler.comm..", "org.mpfl.compiler.gen..",
            "org.mpfl.compiler.commands..", "org.mpfl.compiler.settings..", "org.mpfl.compiler.scaffold..");

    /** What compiles documents: the compiler proper, the generated grammar and the ANTLR runtime under it. */
    public static final List<String> COMPILING = Stream.concat(COMPILER_PROPER.stream(),
            Stream.of("org.mpfl.grammar..", "org.antlr..")).toList();

    private ArchitectureRules() {
    }

    /** Whether a package (a Java package name, {@code org.mpfl.compiler.gen}) belongs to {@link #COMPILING}. */
    public static boolean isCompiling(String packageName) {
        return PackageMatchers.of(COMPILING).test(packageName);
    }

    /**
     * No class uses the compiler proper, the grammar or ANTLR (plus any {@code alsoForbidden} package
     * patterns): the module works with checked IR and plans, and reaches the compiler, if at all,
     * through mpfl-ir's {@code org.mpfl.ir.spi}.
     */
    public static ArchRule usesNoCompiler(String... alsoForbidden) {
        String[] forbidden = Stream.concat(COMPILING.stream(), Stream.of(alsoForbidden)).toArray(String[]::new);
        return noClasses().should().dependOnClassesThat().resideInAnyPackage(forbidden)
                .because("only mpfl-compiler compiles; others use mpfl-ir and the compiler SPI (docs/architecture.md)");
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

    /**
     * The production classes of the module that holds {@code anyOfItsClasses} (its jar, or its
     * {@code target/classes} in a reactor build): for the modules below mpfl-testing (mpfl-ir,
     * mpiws-protocol), whose architecture tests live in mpfl-testing because they cannot depend on it.
     */
    public static JavaClasses classesOf(Class<?> anyOfItsClasses) {
        java.net.URL where = anyOfItsClasses.getProtectionDomain().getCodeSource().getLocation();
        return new ClassFileImporter().importUrl(where);
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
