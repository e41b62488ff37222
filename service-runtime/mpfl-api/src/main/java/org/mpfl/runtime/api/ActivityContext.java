package org.mpfl.runtime.api;

import java.util.Map;

/** What a {@link Activity} sees of the rank that calls it. */
public interface ActivityContext {
    /** World rank. */
    int rank();

    /** World size. */
    int size();

    /** Rank within this rank's process (MPMD). */
    int processRank();

    /** Number of ranks of this rank's process. */
    int processSize();

    /** Parameter values of the run. */
    Map<String, Object> params();

    /** Writes a line to the rank's log ({@code level}: info, warn, error). */
    void log(String level, String message);
}
