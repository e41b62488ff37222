package org.mpfl.compiler.check;

import java.util.List;
import java.util.Map;
import org.mpfl.ir.IrWorkflow;

/**
 * Draws a checked workflow: its processes and the communication between them, as Graphviz DOT
 * ({@code mpflc graph}, the engine's workflow pictures). Like {@link WorkflowAnalysis} it is found with
 * {@link java.util.ServiceLoader} ({@code META-INF/services/org.mpfl.compiler.check.WorkflowPicture}):
 * the communication check provides it, since only its symbolic run knows who talks to whom.
 */
public interface WorkflowPicture {

    /**
     * A picture.
     *
     * @param dot          Graphviz DOT
     * @param notes        why it is partial (communication that depends on run-time data), or empty
     * @param processes    boxes
     * @param messageFlows message arrows
     * @param collectives  collective nodes
     */
    record Drawing(String dot, List<String> notes, int processes, int messageFlows, int collectives) {
    }

    /** Draws the workflow with these parameter values (as {@link WorkflowAnalysis#analyse} gets them). */
    Drawing draw(IrWorkflow workflow, Map<String, Object> paramValues);
}
