package org.mpfl.engine.run;

import org.mpfl.protocol.Endpoint;

/**
 * Where one world rank runs.
 *
 * @param rank     world rank
 * @param process  the process it belongs to
 * @param service  the process's service type
 * @param hostId   the service host
 * @param endpoint how other ranks (and the engine) reach it
 */
public record RankPlacement(int rank, String process, String service, String hostId, Endpoint endpoint) {
}
