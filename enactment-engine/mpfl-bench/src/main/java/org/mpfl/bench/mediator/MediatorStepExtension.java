package org.mpfl.bench.mediator;

import org.mpfl.runtime.host.HostExtension;
import org.mpfl.runtime.host.ServiceHost;

/**
 * {@code mpflc host --extension mediator}: installs the mediator mode's {@link StepService} in a
 * host. Only benchmark hosts ask for it; the engine's hosts for real runs never carry it.
 */
public final class MediatorStepExtension implements HostExtension {
    /** The extension's name on the host command line. */
    public static final String NAME = "mediator";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void install(ServiceHost host) throws Exception {
        StepService.install(host);
    }
}
