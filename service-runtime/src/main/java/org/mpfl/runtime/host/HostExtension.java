package org.mpfl.runtime.host;

import java.util.ServiceLoader;
import org.mpfl.compiler.cli.UsageException;

/**
 * An optional service that a host installs only when asked ({@code mpflc host --extension NAME}),
 * found on the class path through {@link ServiceLoader}. It lets modules above the runtime (the
 * benchmarks' mediator step service) add operations to a host without the runtime depending on
 * them, and keeps production hosts free of anything they were not asked to run.
 */
public interface HostExtension {
    /** The name given to {@code --extension}. */
    String name();

    /**
     * Installs the extension's services in {@code host}.
     *
     * @param engineToken the credential of the engine this host serves, or {@code null} when it has
     *                    none (then the extension must accept calls from this machine only)
     */
    void install(ServiceHost host, String engineToken) throws Exception;

    /** The extension called {@code name} on the class path. */
    static HostExtension named(String name) throws UsageException {
        for (HostExtension e : ServiceLoader.load(HostExtension.class)) {
            if (e.name().equals(name)) {
                return e;
            }
        }
        throw new UsageException("no host extension '" + name + "' on the class path");
    }
}
