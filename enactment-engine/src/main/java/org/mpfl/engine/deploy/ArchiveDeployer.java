package org.mpfl.engine.deploy;

import org.mpfl.engine.registry.HostInfo;

/** Installs one generated service archive ({@code .aar}) on one service host. */
public interface ArchiveDeployer {
    /** Returns once the host has the service running; throws with the host's answer otherwise. */
    void deploy(HostInfo host, String service, byte[] archive) throws Exception;
}
