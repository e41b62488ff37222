package org.mpfl.ir;

import java.util.List;
import org.mpfl.ir.diag.SourceLocation;

/**
 * A checked workflow: the typed program of every process. World ranks are numbered over
 * {@link #processes()} in this order.
 */
public record IrWorkflow(String name, String version, String description, String sourceFile,
        List<String> libraries, List<IrParam> params, List<IrProcess> processes, SourceLocation at, Integer restarts) {

    /** A workflow whose document does not say how often a run may restart ({@code restarts} null). */
    public IrWorkflow(String name, String version, String description, String sourceFile,
            List<String> libraries, List<IrParam> params, List<IrProcess> processes, SourceLocation at) {
        this(name, version, description, sourceFile, libraries, params, processes, at, null);
    }

    public IrWorkflow {
        libraries = List.copyOf(libraries);
        params = List.copyOf(params);
        processes = List.copyOf(processes);
    }

    /** The process called {@code processName}, or null. */
    public IrProcess process(String processName) {
        return processes.stream().filter(p -> p.name().equals(processName)).findFirst().orElse(null);
    }
}
