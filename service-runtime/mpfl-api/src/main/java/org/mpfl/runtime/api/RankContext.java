package org.mpfl.runtime.api;

import java.util.Map;

/** What a running rank can see and report: its communicators, parameters, outputs, logs and progress. */
public interface RankContext {
    /** All ranks of the domain. */
    Communicator world();

    /** The communicator of one process of the workflow (MPMD), by process name. */
    Communicator process(String processName);

    /** The domain this rank belongs to. */
    String domainId();

    /** Parameter values of the run, as given to {@code run}. */
    Map<String, Object> params();

    /** Records a result of the run under {@code name} for this rank. */
    void output(String name, Object value);

    /** Writes a line to this rank's log ({@code level}: info, warn, error). */
    void log(String level, String message);

    /** Reports progress, driving the run's progress bar. */
    void progress(double value, double total);
}
