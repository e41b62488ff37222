package org.mpfl.engine.registry;

import com.fasterxml.jackson.annotation.JsonAlias;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;
import org.mpfl.protocol.Sites;

/**
 * What a service host POSTs to {@code /api/registry/hosts} when it starts (and may re-post at any
 * time to change its offer). Unknown fields are ignored so hosts can send more than the engine reads.
 *
 * @param hostId        unique id of the host process
 * @param soapUrl       base URL of its SOAP services
 * @param binaryAddress {@code host:port} of its binary channel, or {@code null}
 * @param services      service types it offers now
 * @param capacity      the most ranks the engine places here, counting every run (at least 1: the REST
 *                      API refuses less, a static host file's entry below 1 counts as 1; when absent, 1 as a
 *                      preference only: the host may be oversubscribed unless it says otherwise)
 * @param deployUrl     where the engine POSTs service archives ({@code null}: derived from soapUrl,
 *                      see {@link HostInfo#deployUrl()})
 * @param oversubscribe whether it may take more ranks than its capacity ({@code null}: only if it states no capacity)
 * @param instance      an id of this host process, new each time it starts ({@code null}: unknown); an
 *                      announcement under a known host id from another instance replaces the stale entry
 *                      and ends the quarantine the old process earned
 * @param site          the site the host is in ({@code null}: {@link Sites#DEFAULT}; see {@link Sites})
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record HostAnnouncement(String hostId,
                               @JsonAlias({"soapBaseUrl", "baseUrl", "url", "soapBase"}) String soapUrl,
                               @JsonAlias({"binary", "binaryEndpoint"}) String binaryAddress,
                               @JsonAlias({"serviceTypes", "types"}) List<String> services,
                               @JsonAlias({"slots", "cpus"}) Integer capacity,
                               String deployUrl, Boolean oversubscribe, String instance, String site) {

    /** An announcement of a host in the default site. */
    public HostAnnouncement(String hostId, String soapUrl, String binaryAddress, List<String> services, Integer capacity,
                            String deployUrl, Boolean oversubscribe, String instance) {
        this(hostId, soapUrl, binaryAddress, services, capacity, deployUrl, oversubscribe, instance, null);
    }

    /** An announcement without oversubscription or instance id (as older hosts send it). */
    public HostAnnouncement(String hostId, String soapUrl, String binaryAddress, List<String> services, Integer capacity,
                            String deployUrl) {
        this(hostId, soapUrl, binaryAddress, services, capacity, deployUrl, null, null, null);
    }
}
