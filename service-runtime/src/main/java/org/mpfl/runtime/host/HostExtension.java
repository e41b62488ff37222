package org.mpfl.runtime.host;

import java.util.ServiceLoader;
import org.mpfl.ir.cli.UsageException;

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
     * Installs the extension's services in {@code host}. An operation that makes the host act must
     * admit only the host's engine: {@link ServiceHost#acceptsEngineCall(org.apache.axis2.context.MessageContext)}
     * (the engine's key for this host, or this machine when the host serves no engine).
     */
    void install(ServiceHost host) throws Exception;

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
