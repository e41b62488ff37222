package org.mpfl.runtime.host;

import java.io.IOException;
import java.net.InetAddress;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.apache.axis2.context.MessageContext;
import org.mpfl.protocol.HostCredential;

/**
 * Who may make a {@link ServiceHost} act (deploy, {@code run}, an extension's operation): with a
 * credential, only the engine holding this host's key; without one (a host that serves no engine),
 * only callers on this machine; while a credential is awaited, nobody. Checked before a byte of a
 * request body is read.
 */
final class CallerAuthentication {
    /** This host's credential; {@code null}: no engine, deploy and {@code run} from this machine only. */
    private volatile HostCredential credential;
    /**
     * Set from the start when the credential comes later: without it, a host listening before its
     * launcher hands it the credential would take orders from any local process in between.
     */
    private volatile boolean awaitingCredential;
    /** Whether the request's headers are in the message context's transport headers (a servlet container). */
    private final BooleanSupplier headersInTransport;

    CallerAuthentication(boolean awaitingCredential, BooleanSupplier headersInTransport) {
        this.awaitingCredential = awaitingCredential;
        this.headersInTransport = headersInTransport;
    }

    void setCredential(HostCredential credential) {
        this.credential = credential;
        if (credential != null) {
            awaitingCredential = false;
        }
    }

    /** See {@link ServiceHost#acceptsEngineCall(String, Object)}. */
    boolean acceptsEngineCall(String authorization, Object remoteAddress) {
        HostCredential c = credential;
        if (c != null) {
            return c.acceptsEngine(authorization);
        }
        if (awaitingCredential) {
            return false;
        }
        try {
            return remoteAddress != null && InetAddress.getByName(remoteAddress.toString()).isLoopbackAddress();
        } catch (IOException e) {
            return false;
        }
    }

    /** {@link #acceptsEngineCall(String, Object)} for the request of a message context. */
    boolean acceptsEngineCall(MessageContext mc) {
        Object auth = mc.getProperty(ServiceHost.AUTHORIZATION_PROPERTY);
        if (auth == null && headersInTransport.getAsBoolean()) {
            // in a servlet container the AxisServlet keeps the request's headers (the host's worker does not)
            auth = transportHeader(mc, "Authorization");
        }
        return acceptsEngineCall(auth == null ? null : auth.toString(), mc.getProperty(MessageContext.REMOTE_ADDR));
    }

    private static Object transportHeader(MessageContext mc, String name) {
        if (mc.getProperty(MessageContext.TRANSPORT_HEADERS) instanceof Map<?, ?> headers) {
            for (Map.Entry<?, ?> e : headers.entrySet()) {
                if (e.getKey() != null && name.equalsIgnoreCase(e.getKey().toString())) {
                    return e.getValue();
                }
            }
        }
        return null;
    }
}
