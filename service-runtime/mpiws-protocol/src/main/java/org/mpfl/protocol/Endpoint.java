package org.mpfl.protocol;

/**
 * Where one rank can be reached.
 *
 * @param soapUrl       the HTTP address of the rank's MPIWS service (always present)
 * @param binaryAddress {@code host:port} of the service host's binary channel, or {@code null} when it offers none
 * @param hostId        unique id of the service-host process (equal ids: same JVM, so the local transport applies)
 */
public record Endpoint(String soapUrl, String binaryAddress, String hostId) {
}
