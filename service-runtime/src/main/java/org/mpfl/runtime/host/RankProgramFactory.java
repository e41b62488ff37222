package org.mpfl.runtime.host;

import java.net.URL;
import java.util.Map;
import java.util.function.Supplier;
import org.mpfl.ir.plan.DeploymentPlan;
import org.mpfl.ir.plan.PlanProcess;
import org.mpfl.runtime.api.RankProgram;

/**
 * A program class named in a service archive's {@code services.xml} (parameter
 * {@value ServiceHost#PROGRAM_PARAMETER}) may implement this instead of {@link RankProgram}: the host
 * then creates it once when the archive is deployed and asks it for the service type's program
 * factory, giving it what a generic program needs to find its own content — the archive's class
 * loader (its {@code lib/} jars), the archive itself and the service parameters. Generated MPFL
 * services use it so that the interpreter reads the process's program once per deployment.
 */
public interface RankProgramFactory {
    /**
     * @param serviceClassLoader the class loader Axis2 built for the archive (archive root and {@code lib/*.jar})
     * @param archive            where the archive (or exploded directory) is, or {@code null} if unknown
     * @param serviceParameters  the service's {@code services.xml} parameters with text values
     * @return a factory of one program per started rank
     * @throws Exception when the archive's content is unusable; the deployment then fails with this message
     */
    Supplier<RankProgram> programs(ClassLoader serviceClassLoader, URL archive, Map<String, String> serviceParameters)
            throws Exception;

    /**
     * The program factory of one process of a plan held in this JVM, without an archive: what
     * {@link #programs(ClassLoader, URL, Map)} makes of the archive the compiler would have written for
     * {@code process} ({@link InProcessHost}, for a workflow without libraries: the archive would carry
     * nothing but this plan as JSON).
     *
     * @param loader the class loader of the program's classes (no archive, so no {@code lib/} jars)
     * @throws Exception the plan cannot run this way (the message says why)
     */
    default Supplier<RankProgram> programs(DeploymentPlan plan, PlanProcess process, ClassLoader loader) throws Exception {
        throw new UnsupportedOperationException(getClass().getName() + " runs programs from service archives only");
    }
}
