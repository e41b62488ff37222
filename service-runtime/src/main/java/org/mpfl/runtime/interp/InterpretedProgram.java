package org.mpfl.runtime.interp;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.IrParam;
import org.mpfl.ir.IrProcess;
import org.mpfl.ir.IrWalk;
import org.mpfl.ir.IrWorkflow;
import org.mpfl.ir.MpflType;
import org.mpfl.ir.eval.ConstantEnvironment;
import org.mpfl.ir.eval.ExpressionEvaluator;
import org.mpfl.ir.plan.DeploymentPlan;
import org.mpfl.ir.plan.ParamValues;
import org.mpfl.ir.plan.PlanJson;
import org.mpfl.ir.plan.PlanParam;
import org.mpfl.ir.plan.PlanProcess;
import org.mpfl.ir.plan.ServiceProgram;
import org.mpfl.runtime.api.Activity;
import org.mpfl.runtime.interp.kernel.KernelLibraries;
import org.mpfl.runtime.transport.ObjectTypes;
import org.mpfl.protocol.digest.Sha256;

/**
 * The program of one generated service, shared by all its ranks: the process's typed IR, the
 * workflow's params (types and defaults) and processes (to lay out world ranks when the host does
 * not say), and the class loader of the service's libraries, from which {@code compute} activity
 * classes are loaded (once per class per deployment), and the allow-list of its {@code object} values.
 */
public final class InterpretedProgram {
    /** A workflow param: its type and its default value ({@code null}: must be given at run time). */
    record ParamSpec(String name, MpflType type, Object defaultValue) {
    }

    /** A process of the workflow: its name and its rank count as an expression over params. */
    record ProcessSpec(String name, IrExpr ranks) {
    }

    private final String workflow;
    private final IrProcess process;
    private final List<ParamSpec> params;
    private final List<ProcessSpec> processes;
    private final ClassLoader libraries;
    private final ObjectTypes objectTypes;
    private final Map<String, Class<? extends Activity>> activityClasses = new ConcurrentHashMap<>();
    /** The process's checkpoint sites in document order: a checkpoint names its site by index here. */
    private final List<IrActivity.Checkpoint> checkpointSites = new ArrayList<>();
    private volatile String digest;
    private final List<IrActivity.Compute> computeSites = new ArrayList<>();
    private volatile KernelLibraries kernels = KernelLibraries.none();

    private InterpretedProgram(String workflow, IrProcess process, List<ParamSpec> params, List<ProcessSpec> processes,
                               ClassLoader libraries, List<IrProcess> allPrograms) {
        this.workflow = workflow;
        this.process = process;
        this.params = List.copyOf(params);
        this.processes = List.copyOf(processes);
        this.libraries = libraries;
        this.objectTypes = ObjectTypes.forWorkflow(libraries, activityClassNames(allPrograms));
        IrWalk.forEachActivity(process.body(), a -> {
            if (a instanceof IrActivity.Checkpoint c) {
                checkpointSites.add(c);
            }
            if (a instanceof IrActivity.Compute c) {
                computeSites.add(c);
            }
        });
    }

    /** Where this program's kernel libraries (Python files, packages, executables) are; none by default. */
    public InterpretedProgram withKernels(KernelLibraries libraries) {
        this.kernels = libraries;
        return this;
    }

    KernelLibraries kernels() {
        return kernels;
    }

    /** The process's compute sites in document order. */
    List<IrActivity.Compute> computeSites() {
        return computeSites;
    }

    /** The index of a checkpoint site of this process (document order). */
    int checkpointSite(IrActivity.Checkpoint site) {
        for (int i = 0; i < checkpointSites.size(); i++) {
            if (checkpointSites.get(i) == site) {
                return i;
            }
        }
        throw new IllegalArgumentException("not a checkpoint of process " + process.name() + ": " + site.at());
    }

    /** The checkpoint site at {@code index}, or null. */
    IrActivity.Checkpoint checkpointSite(int index) {
        return index >= 0 && index < checkpointSites.size() ? checkpointSites.get(index) : null;
    }

    /**
     * SHA-256 of the process's IR (lower-case hex): a checkpoint records it, and only the same program
     * resumes from it (a changed document has other positions and variables).
     */
    String digest() {
        String d = digest;
        if (d == null) {
            d = Sha256.hex(org.mpfl.ir.plan.PlanJson.toBytes(process));
            digest = d;
        }
        return d;
    }

    /**
     * The {@code compute} classes of every process of the workflow: an object value may come from any
     * process, and the value classes live next to the activities that make them ({@link ObjectTypes}).
     */
    private static Set<String> activityClassNames(List<IrProcess> programs) {
        Set<String> names = new TreeSet<>();
        for (IrProcess p : programs) {
            if (p != null) {
                IrWalk.forEachActivity(p.body(), a -> {
                    if (a instanceof IrActivity.Compute c && c.className() != null) {
                        names.add(c.className());
                    }
                });
            }
        }
        return names;
    }

    /** The program of process {@code processName} of a checked workflow (tests, embedding). */
    public static InterpretedProgram of(IrWorkflow workflow, String processName, ClassLoader libraries) {
        IrProcess p = workflow.process(processName);
        if (p == null) {
            throw new IllegalArgumentException("workflow " + workflow.name() + " has no process '" + processName + "'");
        }
        List<ParamSpec> params = new ArrayList<>();
        for (IrParam param : workflow.params()) {
            Object dflt = param.defaultValue() == null ? null
                    : ExpressionEvaluator.evaluate(param.defaultValue(), new ConstantEnvironment(Map.of()));
            params.add(new ParamSpec(param.name(), param.type(), dflt));
        }
        List<ProcessSpec> processes = workflow.processes().stream().map(x -> new ProcessSpec(x.name(), x.ranks())).toList();
        return new InterpretedProgram(workflow.name(), p, params, processes, libraries, workflow.processes());
    }

    /** The program of a generated service archive: its program entry and the deployment plan next to it. */
    public static InterpretedProgram of(ServiceProgram program, DeploymentPlan plan, ClassLoader libraries) {
        if (program.program() == null) {
            throw new IllegalArgumentException("the service program of process '" + program.process() + "' has no IR");
        }
        List<ParamSpec> params = new ArrayList<>();
        for (PlanParam param : plan.params()) {
            params.add(new ParamSpec(param.name(), param.type(), param.defaultValue()));
        }
        List<ProcessSpec> processes = new ArrayList<>();
        for (PlanProcess p : plan.processes()) {
            processes.add(new ProcessSpec(p.name(), p.ranks()));
        }
        List<IrProcess> programs = new ArrayList<>();
        programs.add(program.program());
        plan.processes().forEach(p -> programs.add(p.program()));
        return new InterpretedProgram(plan.workflow(), program.program(), params, processes, libraries, programs);
    }

    /** Reads the program and plan entries of a generated archive ({@code mpfl/program.json}, {@code mpfl/plan.json}). */
    public static InterpretedProgram read(InputStream programJson, InputStream planJson, ClassLoader libraries)
            throws IOException {
        ServiceProgram program = PlanJson.mapper().readValue(programJson, ServiceProgram.class);
        DeploymentPlan plan = PlanJson.readPlan(planJson);
        return of(program, plan, libraries);
    }

    public String workflow() {
        return workflow;
    }

    /** The process this program runs. */
    public IrProcess process() {
        return process;
    }

    List<ProcessSpec> processes() {
        return processes;
    }

    ClassLoader libraries() {
        return libraries;
    }

    /** The allow-list of this workflow's {@code object} values (same for all its processes). */
    public ObjectTypes objectTypes() {
        return objectTypes;
    }

    /**
     * The run's param values, typed as declared: given values (JSON scalars, or texts as on the
     * command line) override defaults; values of undeclared names are ignored.
     *
     * @throws RankFault if a param has no value or a value of the wrong type
     */
    Map<String, Object> typedParams(Map<String, Object> given) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (ParamSpec p : params) {
            Object v = given == null ? null : given.get(p.name());
            if (v == null) {
                v = p.defaultValue();
            }
            if (v == null) {
                throw Faults.of("params", null, "param '" + p.name() + "' has no value: it has no default, so give it"
                        + " at run time (--param " + p.name() + "=...)");
            }
            Object typed = typed(v, p.type());
            if (typed == null) {
                throw Faults.of("params", null, "param '" + p.name() + "' must be " + p.type() + ", got '" + v + "'");
            }
            out.put(p.name(), typed);
        }
        return Collections.unmodifiableMap(out);
    }

    private static Object typed(Object v, MpflType type) {
        if (v instanceof String text) {
            return ParamValues.parse(text, type);
        }
        switch (type) {
            case INT -> {
                if (v instanceof Integer || v instanceof Long l && l == l.intValue()) {
                    return ((Number) v).intValue();
                }
                return v instanceof Double d && d == Math.rint(d) && Math.abs(d) <= Integer.MAX_VALUE ? d.intValue() : null;
            }
            case LONG -> {
                if (v instanceof Integer || v instanceof Long) {
                    return ((Number) v).longValue();
                }
                return v instanceof Double d && d == Math.rint(d) && Math.abs(d) < 9.2e18 ? d.longValue() : null;
            }
            case DOUBLE -> {
                return v instanceof Number n ? n.doubleValue() : null;
            }
            case BOOLEAN -> {
                return v instanceof Boolean ? v : null;
            }
            case STRING -> {
                return v instanceof Number || v instanceof Boolean ? String.valueOf(v) : null;
            }
            default -> {
                return null;
            }
        }
    }

    /**
     * The {@link Activity} class named by a {@code compute}, loaded once from the service's libraries.
     *
     * @throws ReflectiveOperationException if it is missing or is not a public Activity with a no-argument constructor
     */
    Class<? extends Activity> activityClass(String className) throws ReflectiveOperationException {
        Class<? extends Activity> c = activityClasses.get(className);
        if (c != null) {
            return c;
        }
        Class<?> loaded;
        try {
            loaded = Class.forName(className, true, libraries);
        } catch (ClassNotFoundException e) {
            throw new ClassNotFoundException("activity class " + className
                    + " is not in the workflow's libraries (<library path=\"...\"/>)", e);
        }
        if (!Activity.class.isAssignableFrom(loaded)) {
            throw new ClassNotFoundException("class " + className + " does not implement " + Activity.class.getName());
        }
        Class<? extends Activity> activity = loaded.asSubclass(Activity.class);
        activity.getConstructor(); // public no-argument constructor, or NoSuchMethodException
        activityClasses.putIfAbsent(className, activity);
        return activity;
    }
}
