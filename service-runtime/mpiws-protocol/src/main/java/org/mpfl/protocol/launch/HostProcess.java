package org.mpfl.protocol.launch;

import java.nio.file.Path;
import org.mpfl.protocol.Endpoint;
import org.mpfl.protocol.MpiwsNames;

/**
 * One service-host child process started by {@link HostProcesses}, with the addresses from its
 * ready line.
 *
 * @param hostId        the host's id
 * @param baseUrl       {@code http://127.0.0.1:PORT} ({@code https://…} with TLS on)
 * @param binaryAddress {@code 127.0.0.1:PORT2}, or {@code null}
 * @param process       the child process
 * @param log           file receiving the child's stderr
 */
public record HostProcess(String hostId, String baseUrl, String binaryAddress, Process process, Path log) {

    /** SOAP address of a service type in this host. */
    public String serviceUrl(String serviceType) {
        return baseUrl + MpiwsNames.SERVICES_PATH + serviceType;
    }

    /** SOAP base URL of the host's services (what the engine's registry calls soapUrl). */
    public String servicesBaseUrl() {
        return baseUrl + MpiwsNames.SERVICES_PATH.substring(0, MpiwsNames.SERVICES_PATH.length() - 1);
    }

    /** Endpoint of a rank of {@code serviceType} placed in this host. */
    public Endpoint endpoint(String serviceType) {
        return new Endpoint(serviceUrl(serviceType), binaryAddress, hostId);
    }

    public boolean isAlive() {
        return process.isAlive();
    }
}
