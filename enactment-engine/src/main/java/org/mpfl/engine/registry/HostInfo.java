package org.mpfl.engine.registry;

import java.util.Set;
import org.mpfl.protocol.Endpoint;
import org.mpfl.protocol.Sites;

/**
 * One service host as the engine knows it.
 *
 * @param hostId          unique id of the service-host process
 * @param soapUrl         base URL of the host's SOAP services (a service type {@code t} lives at {@code soapUrl/t})
 * @param binaryAddress   {@code host:port} of its binary channel, or {@code null}
 * @param services        service types it offers (may grow when the engine deploys archives to it)
 * @param capacity        how many ranks it should get before others are used (at least 1)
 * @param lastHeartbeatMs epoch milliseconds of the last announce or heartbeat
 * @param staticEntry     {@code true} when it came from a host file: it never expires
 * @param announcedDeployUrl where the host accepts service archives, as announced, or {@code null}
 * @param oversubscribe   whether it takes more ranks than its capacity when every host is full
 *                        ({@code mpflc host --oversubscribe}, as mpirun's); else its capacity is a hard bound
 * @param instance        the id of the host process that announced it, new each time a host starts ({@code null}:
 *                        not told); not a secret: {@code mpflc slurm} waits for hosts of a new instance
 * @param site            the site the host is in ({@link Sites}; {@link Sites#DEFAULT} when it named none)
 */
public record HostInfo(String hostId, String soapUrl, String binaryAddress, Set<String> services, int capacity,
                       long lastHeartbeatMs, boolean staticEntry, String announcedDeployUrl, boolean oversubscribe,
                       String instance, String site) {

    public HostInfo {
        site = Sites.of(site);
    }

    /** A host of the default site. */
    public HostInfo(String hostId, String soapUrl, String binaryAddress, Set<String> services, int capacity,
                    long lastHeartbeatMs, boolean staticEntry, String announcedDeployUrl, boolean oversubscribe,
                    String instance) {
        this(hostId, soapUrl, binaryAddress, services, capacity, lastHeartbeatMs, staticEntry, announcedDeployUrl,
                oversubscribe, instance, Sites.DEFAULT);
    }

    /** A host that never takes more ranks than its capacity, of an unknown instance. */
    public HostInfo(String hostId, String soapUrl, String binaryAddress, Set<String> services, int capacity,
                    long lastHeartbeatMs, boolean staticEntry, String announcedDeployUrl) {
        this(hostId, soapUrl, binaryAddress, services, capacity, lastHeartbeatMs, staticEntry, announcedDeployUrl, false, null);
    }

    /**
     * Where the engine POSTs a service archive ({@code ?service=NAME}, body: the {@code .aar} bytes):
     * the announced URL, else {@code <soapUrl>/mpfl-deploy}.
     */
    public String deployUrl() {
        if (announcedDeployUrl != null && !announcedDeployUrl.isBlank()) {
            return announcedDeployUrl;
        }
        return (soapUrl.endsWith("/") ? soapUrl.substring(0, soapUrl.length() - 1) : soapUrl) + "/mpfl-deploy";
    }

    /** Where service type {@code service} of this host answers SOAP calls. */
    public String serviceUrl(String service) {
        String base = soapUrl.endsWith("/") ? soapUrl.substring(0, soapUrl.length() - 1) : soapUrl;
        return base + "/" + service;
    }

    /** Where a rank of service type {@code service} on this host is reached (in this host's site). */
    public Endpoint endpoint(String service) {
        return new Endpoint(serviceUrl(service), binaryAddress, hostId, site);
    }

    /** Whether this host can run ranks of {@code service} without a deployment first. */
    public boolean offers(String service) {
        return services.contains(service) || services.contains(HostFile.ANY_SERVICE);
    }

    HostInfo withHeartbeat(long nowMs) {
        return new HostInfo(hostId, soapUrl, binaryAddress, services, capacity, nowMs, staticEntry, announcedDeployUrl,
                oversubscribe, instance, site);
    }

    HostInfo withService(String service) {
        java.util.Set<String> more = new java.util.TreeSet<>(services);
        more.add(service);
        return new HostInfo(hostId, soapUrl, binaryAddress, Set.copyOf(more), capacity, lastHeartbeatMs, staticEntry,
                announcedDeployUrl, oversubscribe, instance, site);
    }
}
