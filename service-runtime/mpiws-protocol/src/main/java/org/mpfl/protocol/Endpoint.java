package org.mpfl.protocol;

/**
 * Where one rank can be reached.
 *
 * @param soapUrl       the HTTP address of the rank's MPIWS service (always present)
 * @param binaryAddress {@code host:port} of the service host's binary channel, or {@code null} when it offers none
 * @param hostId        unique id of the service-host process (equal ids: same JVM, so the local transport applies)
 * @param site          the site of that host ({@link Sites}; {@link Sites#DEFAULT} when it names none): ranks of
 *                      one site reach each other cheaply, the hierarchical collectives group ranks by it
 * @param relay         {@code host:port} of the relay through which that host accepts connections from outside its
 *                      site, or {@code null} when it accepts them directly: a peer outside its site that accepts
 *                      inbound connections itself asks it through this relay to connect out (a reverse connection)
 */
public record Endpoint(String soapUrl, String binaryAddress, String hostId, String site, String relay) {
    public Endpoint {
        site = Sites.of(site);
        relay = relay == null || relay.isBlank() ? null : relay;
    }

    /** An endpoint of a host that accepts inbound connections (no relay). */
    public Endpoint(String soapUrl, String binaryAddress, String hostId, String site) {
        this(soapUrl, binaryAddress, hostId, site, null);
    }

    /** An endpoint of a host in the {@linkplain Sites#DEFAULT default site}. */
    public Endpoint(String soapUrl, String binaryAddress, String hostId) {
        this(soapUrl, binaryAddress, hostId, Sites.DEFAULT);
    }

    /** This endpoint, its host reached from outside its site through the relay at {@code relayAddress} (null: directly). */
    public Endpoint withRelay(String relayAddress) {
        return new Endpoint(soapUrl, binaryAddress, hostId, site, relayAddress);
    }
}
