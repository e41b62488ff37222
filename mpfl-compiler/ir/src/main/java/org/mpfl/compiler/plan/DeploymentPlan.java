package org.mpfl.compiler.plan;

import java.util.List;

/**
 * What {@code mpflc compile} produces for the engine and the service hosts ({@code plan.json}, JSON
 * Schema in {@code docs/deployment-plan.schema.json}). Field names are stable: add, never rename.
 * World ranks are numbered over {@link #processes()} in this order.
 *
 * @param formatVersion {@link #FORMAT_VERSION}; readers refuse other major versions
 * @param source        the document's file name (no directories)
 * @param sourceSha256  SHA-256 of the document's bytes, lower-case hex
 * @param compiler      the compiler that wrote the plan
 */
public record DeploymentPlan(int formatVersion, String workflow, String version, String description, String source,
        String sourceSha256, String compiler, List<PlanParam> params, List<PlanLibrary> libraries,
        List<PlanProcess> processes) {

    /** The plan format written by this compiler. */
    public static final int FORMAT_VERSION = 1;

    public DeploymentPlan {
        params = List.copyOf(params);
        libraries = List.copyOf(libraries);
        processes = List.copyOf(processes);
    }

    /** The process called {@code name}, or null. */
    public PlanProcess process(String name) {
        return processes.stream().filter(p -> p.name().equals(name)).findFirst().orElse(null);
    }
}
