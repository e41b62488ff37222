package org.mpfl.engine.capacity;

/**
 * A job that starts one service host for the engine.
 *
 * @param name       the job's name at the scheduler, unique to it ({@code mpfl-HOSTID})
 * @param hostId     the host id it enrols as
 * @param credential the host's credential text, a secret: it goes into the job's environment only
 * @param engineUrl  where the host enrols
 * @param cpus       the host's capacity (ranks) and the CPUs the job asks for
 */
public record HostJob(String name, String hostId, String credential, String engineUrl, int cpus) {
    @Override
    public String toString() {
        return "HostJob[name=" + name + ", hostId=" + hostId + ", engineUrl=" + engineUrl + ", cpus=" + cpus + "]";
    }
}
