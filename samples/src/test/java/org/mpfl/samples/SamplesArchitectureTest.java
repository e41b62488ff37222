package org.mpfl.samples;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClasses;
import org.junit.jupiter.api.Test;
import org.mpfl.architecture.ArchitectureRules;

/**
 * The samples' activity code is what a user of MPFL writes: classes against the runtime's public API
 * ({@code org.mpfl.runtime.api}) and the JDK, nothing else of MPFL and no library. One package per
 * sample, each standing on {@code common} only, so that a sample can be read (and copied) alone.
 */
class SamplesArchitectureTest {
    private static final JavaClasses CLASSES = ArchitectureRules.moduleClasses();

    @Test
    void noPackageCycles() {
        ArchitectureRules.noPackageCycles("org.mpfl").check(CLASSES);
    }

    @Test
    void activityCodeUsesThePublicApiAndTheJdkOnly() {
        classes().should().onlyDependOnClassesThat().resideInAnyPackage("java..", "org.mpfl.runtime.api..", "org.mpfl.samples..")
                .because("the samples show what a user writes: the runtime's public API is the contract (docs/architecture.md)")
                .check(CLASSES);
    }

    @Test
    void eachSampleStandsOnCommonOnly() {
        slices().matching("org.mpfl.samples.(*)..").should().notDependOnEachOther()
                .ignoreDependency(DescribedPredicate.alwaysTrue(), resideInAPackage("org.mpfl.samples.common.."))
                .check(CLASSES);
    }
}
