package org.mpfl.compiler.check;

import java.util.Map;
import org.mpfl.ir.diag.Diagnostics;
import org.mpfl.ir.IrWorkflow;

/**
 * A whole-program analysis that runs after typing succeeded without errors, for given param values
 * (defaults overridden by {@code --param}), e.g. the communication check of spec section 5.
 * Implementations are found with {@link java.util.ServiceLoader} through
 * {@code META-INF/services/org.mpfl.compiler.check.WorkflowAnalysis}, so they can be added without
 * touching the pipeline in {@link org.mpfl.compiler.MpflCompiler}.
 */
public interface WorkflowAnalysis {

    /**
     * Analyses the workflow and reports into {@code diagnostics}.
     *
     * @param paramValues a value for every param that has a default or was given; params without a
     *                    value are absent (say what could not be decided rather than guessing)
     */
    void analyse(IrWorkflow workflow, Map<String, Object> paramValues, Diagnostics diagnostics);
}
