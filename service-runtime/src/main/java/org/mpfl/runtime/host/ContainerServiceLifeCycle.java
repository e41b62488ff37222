package org.mpfl.runtime.host;

import org.apache.axis2.context.ConfigurationContext;
import org.apache.axis2.description.AxisService;
import org.apache.axis2.engine.ServiceLifeCycle;

/**
 * The Axis2 service life cycle named in a generated service's services.xml
 * ({@code <service class="…">}). In a stock Axis2 container it binds the service to the container's
 * MPFL runtime on start-up (whose messaging then starts with the first request) and unbinds it on
 * shutdown (the runtime closes with its last service). Inside an MPFL {@link ServiceHost} (whose Axis2
 * configuration carries {@value Axis2Setup#HOST_MARKER}) it does nothing: the host binds the service.
 */
public final class ContainerServiceLifeCycle implements ServiceLifeCycle {
    @Override
    public void startUp(ConfigurationContext ctx, AxisService service) {
        if (ctx != null && !inServiceHost(ctx)) {
            ContainerRuntime.bind(ctx, service);
        }
        // without a context (deployment while Axis2 starts) the first request binds it
    }

    @Override
    public void shutDown(ConfigurationContext ctx, AxisService service) {
        if (ctx != null && !inServiceHost(ctx)) {
            ContainerRuntime.unbind(ctx, service);
        }
    }

    private static boolean inServiceHost(ConfigurationContext ctx) {
        return ctx.getAxisConfiguration() != null && ctx.getAxisConfiguration().getParameter(Axis2Setup.HOST_MARKER) != null;
    }
}
