package org.mpfl.compiler.gen;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.IrParam;
import org.mpfl.ir.IrProcess;
import org.mpfl.ir.IrWorkflow;
import org.mpfl.ir.eval.ConstantEnvironment;
import org.mpfl.ir.eval.ExpressionEvaluator;
import org.mpfl.ir.eval.RuntimeFault;
import org.mpfl.ir.plan.DeploymentPlan;
import org.mpfl.ir.plan.PlanLibrary;
import org.mpfl.ir.plan.PlanParam;
import org.mpfl.ir.plan.PlanProcess;
import org.mpfl.protocol.digest.Sha256;

/** Builds the {@link DeploymentPlan} of a checked, error-free workflow. */
public final class PlanBuilder {
    /** Written into every plan. */
    public static final String COMPILER = "mpflc 0.1.0";

    private PlanBuilder() {
    }

    /** The archive file name of a process. */
    public static String archiveName(IrProcess process) {
        return process.name() + ".aar";
    }

    /** Where the archive keeps the kernel libraries (Python files, packages, zips, executables' directories). */
    public static final String KERNELS_DIRECTORY = "kernels/";

    /**
     * The archive entry of a library: {@code lib/} + its file name for a jar (on the class path of the
     * service), {@code kernels/} + its file name for anything else (a {@code .py}, a {@code .zip} or a
     * directory, whose files go under that entry).
     */
    public static String libraryEntry(String path) {
        Path fileName = Paths.get(path).getFileName();
        String name = fileName == null ? path : fileName.toString();
        return (path.endsWith(".jar") ? "lib/" : KERNELS_DIRECTORY) + name;
    }

    public static DeploymentPlan build(IrWorkflow workflow, byte[] source) {
        List<PlanParam> params = new ArrayList<>();
        for (IrParam p : workflow.params()) {
            Object value = p.defaultValue() instanceof IrExpr.Const c ? c.value() : null;
            params.add(new PlanParam(p.name(), p.type(), value, value == null, p.at()));
        }
        List<PlanLibrary> libraries = workflow.libraries().stream().map(l -> new PlanLibrary(l, libraryEntry(l))).toList();
        ConstantEnvironment defaults = new ConstantEnvironment(defaults(params));
        List<PlanProcess> processes = new ArrayList<>();
        for (IrProcess p : workflow.processes()) {
            processes.add(new PlanProcess(p.name(), p.service(), p.ranks(), ranksWithDefaults(p, defaults), archiveName(p), p));
        }
        String fileName = Paths.get(workflow.sourceFile()).getFileName().toString();
        return new DeploymentPlan(DeploymentPlan.FORMAT_VERSION, workflow.name(), workflow.version(), workflow.description(),
                fileName, Sha256.hex(source), COMPILER, params, libraries, processes, workflow.restarts());
    }

    private static Map<String, Object> defaults(List<PlanParam> params) {
        Map<String, Object> values = new java.util.LinkedHashMap<>();
        params.stream().filter(p -> p.defaultValue() != null).forEach(p -> values.put(p.name(), p.defaultValue()));
        return values;
    }

    private static Integer ranksWithDefaults(IrProcess p, ConstantEnvironment defaults) {
        try {
            return ExpressionEvaluator.evaluateInt(p.ranks(), defaults);
        } catch (ConstantEnvironment.NotConstantException | RuntimeFault e) {
            return null;
        }
    }
}
