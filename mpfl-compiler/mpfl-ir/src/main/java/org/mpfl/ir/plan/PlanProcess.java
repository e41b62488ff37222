package org.mpfl.ir.plan;

import org.mpfl.ir.IrExpr;
import org.mpfl.ir.IrProcess;

/**
 * A process in the plan: the service type the engine places its ranks on, its rank count as an
 * expression over params (evaluated at run time with the run's params) and, for convenience, its
 * value with the defaults (null if a param without default is involved), the generated archive's
 * file name, and the program (typed IR).
 */
public record PlanProcess(String name, String service, IrExpr ranks, Integer ranksWithDefaults, String archive,
        IrProcess program) {
}
