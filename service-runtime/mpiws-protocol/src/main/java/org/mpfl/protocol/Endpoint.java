package org.mpfl.protocol;

/**
 * Where one rank can be reached.
 *
 * @param soapUrl       the HTTP address of the rank's MPIWS service (always present)
 * @param binaryAddress {@code host:port} of the service host's binary channel, or {@code null} when it offers none
 * @param hostId        unique id of the service-host process (equal ids: same JVM, so the local transport applies)
 * @param site          the site of that host ({@link Sites}; {@link Sites#DEFAULT} when it names none): ranks of
 *                      one site reach each other cheaply, the hierarchical collectives group ranks by it
 */
public record Endpoint(String soapUrl, String binaryAddress, String hostId, String site) {
    public Endpoint {
        site = Sites.of(site);
    }

    /** An endpoint of a host in the {@linkplain Sites#DEFAULT default site}. */
    public Endpoint(String soapUrl, String binaryAddress, String hostId) {
        this(soapUrl, binaryAddress, hostId, Sites.DEFAULT);
    }
}
