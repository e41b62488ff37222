package org.mpfl.engine.run;

import java.util.List;
import java.util.Map;
import org.mpfl.ir.eval.ProcessLayout;
import org.mpfl.protocol.RunRequest.ProcessSlice;

/**
 * What placing a run's ranks needs, kept for its restarts and resumes.
 *
 * @param layout   the plan's process layout for the run's parameter values
 * @param services process → the service name its ranks are placed on (deployed name)
 * @param slices   the run request's process slices (the plan's service types)
 * @param queueing its priority, oversubscription and queue timeout
 */
record LaunchSpec(ProcessLayout layout, Map<String, String> services, List<ProcessSlice> slices, Queueing queueing) {
    /** How many ranks the run has. */
    int ranks() {
        return slices.stream().mapToInt(ProcessSlice::ranks).sum();
    }
}
