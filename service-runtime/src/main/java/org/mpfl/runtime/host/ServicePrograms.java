package org.mpfl.runtime.host;

import java.net.URL;
import java.util.Map;
import java.util.function.Supplier;
import org.mpfl.ir.plan.DeploymentPlan;
import org.mpfl.ir.plan.PlanProcess;
import org.mpfl.ir.plan.RuntimeBinding;
import org.mpfl.runtime.api.RankProgram;

/**
 * The program factory of a service type, from the program class its archive's {@code services.xml} names
 * ({@value ServiceHost#PROGRAM_PARAMETER}): free of Axis2, so that ranks run in the command line's JVM
 * ({@link InProcessHost}) load their programs exactly as an Axis2 host ({@link ServiceArchives}) and a stock
 * container ({@link ContainerRuntime}) do, without loading Axis2.
 */
final class ServicePrograms {
    private ServicePrograms() {
    }

    /**
     * The factory of a program class that is a {@link RankProgramFactory} (generated MPFL services), created
     * once here; {@code null} for a plain {@link RankProgram} class, or a class that cannot be loaded (its
     * ranks then fail to start, naming it).
     *
     * @param archive    where the archive is, or {@code null} if unknown
     * @param parameters the service's {@code services.xml} parameters with text values
     * @throws Exception the archive's content is unusable (the factory refused it)
     */
    static Supplier<RankProgram> factory(String className, ClassLoader loader, URL archive, Map<String, String> parameters)
            throws Exception {
        Class<?> type;
        try {
            type = Class.forName(className, true, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            return null; // reported when a rank of it is started, as before
        }
        if (!RankProgramFactory.class.isAssignableFrom(type)) {
            return null;
        }
        RankProgramFactory f = (RankProgramFactory) type.getDeclaredConstructor().newInstance();
        return f.programs(loader, archive, parameters);
    }

    /**
     * The program factory of a process of a plan held in this JVM, from the program class the compiler names
     * in the services it generates ({@link RuntimeBinding#INTERPRETER_CLASS}), as its archive would have it
     * ({@link RankProgramFactory#programs(DeploymentPlan, PlanProcess, ClassLoader)}).
     *
     * @throws Exception that class is missing here, or refused the plan
     */
    static Supplier<RankProgram> fromPlan(DeploymentPlan plan, PlanProcess process, ClassLoader loader) throws Exception {
        Class<?> type = Class.forName(RuntimeBinding.INTERPRETER_CLASS, true, loader);
        RankProgramFactory f = (RankProgramFactory) type.getDeclaredConstructor().newInstance();
        return f.programs(plan, process, loader);
    }

    /** A new instance of a plain {@link RankProgram} class per rank (a missing class fails the rank's start). */
    static Supplier<RankProgram> newInstances(String className, ClassLoader loader) {
        return () -> {
            try {
                return (RankProgram) Class.forName(className, true, loader).getDeclaredConstructor().newInstance();
            } catch (ReflectiveOperationException | ClassCastException e) {
                throw new IllegalStateException("cannot create rank program " + className + ": " + e, e);
            }
        };
    }
}
