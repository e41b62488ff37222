package org.mpfl.ir.plan;

import org.mpfl.ir.IrProcess;

/**
 * The program entry of a service archive ({@code mpfl/program.json}): which workflow and process the
 * service runs, and the process's typed IR. The full plan is next to it ({@code mpfl/plan.json}).
 */
public record ServiceProgram(String workflow, String version, String sourceSha256, String process, String service,
        IrProcess program) {
}
