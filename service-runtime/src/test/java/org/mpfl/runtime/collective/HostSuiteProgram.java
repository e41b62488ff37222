package org.mpfl.runtime.collective;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.function.Function;
import org.mpfl.runtime.api.RankContext;
import org.mpfl.runtime.api.RankProgram;
import org.mpfl.runtime.topology.CollectiveCommunicator;

/**
 * The collective suite as a service: every rank of a domain runs the same test methods of
 * {@link CollectiveSuite} in the same order on its world communicator, so their collectives line
 * up across service-host processes. Parameter {@code tests}: comma-separated method names. A failed
 * check fails the rank (and the domain); output {@code passed} counts the methods run.
 */
public final class HostSuiteProgram implements RankProgram {
    @Override
    public void run(RankContext ctx) throws Exception {
        CollectiveCommunicator world = CollectiveCommunicator.of(ctx.world());
        int size = world.size();
        CollectiveSuite suite = new CollectiveSuite() {
            @Override
            protected Object[] run(int p, Function<Coll, Object> body) {
                Object[] out = new Object[p];
                Arrays.fill(out, "ok");
                if (p == size) {
                    Arrays.fill(out, body.apply(Coll.of(world)));
                }
                return out;
            }

            @Override
            protected int[] sizes() {
                return new int[] {size};
            }

            @Override
            protected int[] bigSizes() {
                return new int[] {size};
            }
        };
        int passed = 0;
        for (String name : String.valueOf(ctx.params().get("tests")).split(",")) {
            Method m = CollectiveSuite.class.getDeclaredMethod(name.trim());
            m.setAccessible(true);
            try {
                m.invoke(suite);
            } catch (InvocationTargetException e) {
                Throwable cause = e.getCause();
                if (cause instanceof Exception ex) {
                    throw ex;
                }
                throw new AssertionError(name + " failed: " + cause, cause);
            }
            passed++;
            ctx.progress(passed, 1);
        }
        ctx.output("passed", passed);
    }
}
