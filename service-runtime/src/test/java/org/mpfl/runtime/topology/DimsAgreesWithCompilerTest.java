package org.mpfl.runtime.topology;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.lang.reflect.Method;
import org.junit.jupiter.api.Test;
import org.mpfl.ir.diag.SourceLocation;

/**
 * The compiler evaluates {@code dims(p, nd)} for its static analysis with its own copy (it does not
 * depend on the runtime); both must factorise identically, or the compiler would analyse a grid the
 * runtime does not build.
 */
class DimsAgreesWithCompilerTest {
    @Test
    void sameFactorisationAsTheCompilersEvaluator() throws Exception {
        Class<?> functions = Class.forName("org.mpfl.ir.eval.Functions");
        Method dims = functions.getDeclaredMethod("dims", int.class, int.class, SourceLocation.class);
        dims.setAccessible(true);
        SourceLocation at = SourceLocation.startOf("test");
        for (int p = 1; p <= 300; p++) {
            for (int nd = 1; nd <= 5; nd++) {
                assertArrayEquals((int[]) dims.invoke(null, p, nd, at), Dims.create(p, nd), "dims(" + p + ", " + nd + ")");
            }
        }
    }
}
