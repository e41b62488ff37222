package org.mpfl.runtime.api;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The activity API is what users' projects compile against ({@code mpflc new java}), so it stands alone:
 * the JDK and its own package, nothing of the runtime and no library. (This module's tests do not use
 * mpfl-testing's shared rules: that module sits above the runtime's protocol, and this one below everything.)
 */
class ApiArchitectureTest {
    private static final JavaClasses CLASSES = new ClassFileImporter().importPath(Path.of("target", "classes"));

    @Test
    void theApiUsesTheJdkAndItselfOnly() {
        assertTrue(CLASSES.size() >= 10, "the API's classes: " + CLASSES.size());
        classes().should().onlyDependOnClassesThat().resideInAnyPackage("java..", "org.mpfl.runtime.api")
                .because("mpfl-api has no dependencies: a user's kernel project depends on it alone")
                .check(CLASSES);
    }
}
