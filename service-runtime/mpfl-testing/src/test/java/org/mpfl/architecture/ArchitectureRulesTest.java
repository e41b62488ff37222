package org.mpfl.architecture;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.Test;

/** The shared rules catch what they are for: a package cycle, and a lower layer using an upper one. */
class ArchitectureRulesTest {
    private static final String FIXTURE = "org.mpfl.architecture.fixture";

    @Test
    void aPackageCycleFailsTheRule() {
        JavaClasses classes = new ClassFileImporter().importPackages(FIXTURE + ".cycle");
        AssertionError e = assertThrows(AssertionError.class,
                () -> ArchitectureRules.noPackageCycles(FIXTURE + ".cycle").check(classes));
        assertTrue(e.getMessage().contains("Cycle detected"), e.getMessage());
    }

    @Test
    void packagesWithoutACyclePass() {
        JavaClasses classes = new ClassFileImporter().importPackages(FIXTURE + ".layers");
        assertDoesNotThrow(() -> ArchitectureRules.noPackageCycles(FIXTURE + ".layers").check(classes));
    }

    @Test
    void anUpwardDependencyFailsTheLayers() {
        JavaClasses classes = new ClassFileImporter().importPackages(FIXTURE + ".layers");
        ArchRule upperOnTop = layers("upper", "lower");
        ArchRule lowerOnTop = layers("lower", "upper");
        // upper.Upper uses lower.Lower: fine when upper sits on top, an upward dependency otherwise
        assertDoesNotThrow(() -> upperOnTop.check(classes));
        AssertionError e = assertThrows(AssertionError.class, () -> lowerOnTop.check(classes));
        assertTrue(e.getMessage().contains("Upper"), e.getMessage());
    }

    @Test
    void theCompilerProperIsNotMpflIr() {
        for (String p : new String[] {"org.mpfl.compiler", "org.mpfl.compiler.gen", "org.mpfl.compiler.check.activity",
                "org.mpfl.compiler.commands", "org.mpfl.grammar", "org.antlr.v4.runtime"}) {
            assertTrue(ArchitectureRules.isCompiling(p), p);
        }
        for (String p : new String[] {"org.mpfl.ir", "org.mpfl.ir.eval", "org.mpfl.ir.plan",
                "org.mpfl.ir.diag", "org.mpfl.ir.cli", "org.mpfl.ir.spi", "org.mpfl.compilers",
                "org.mpfl.runtime.host"}) {
            assertFalse(ArchitectureRules.isCompiling(p), p);
        }
    }

    private static ArchRule layers(String top, String bottom) {
        return ArchitectureRules.layers()
                .layer("top").definedBy(FIXTURE + ".layers." + top)
                .layer("bottom").definedBy(FIXTURE + ".layers." + bottom)
                .whereLayer("top").mayNotBeAccessedByAnyLayer()
                .whereLayer("bottom").mayOnlyBeAccessedByLayers("top");
    }
}
