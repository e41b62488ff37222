package org.mpfl.war;

import org.mpfl.protocol.settings.ProtocolSettings;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;
import java.io.IOException;
import java.nio.file.Path;
import org.mpfl.protocol.MpiwsNames;
import org.mpfl.protocol.tls.TlsSettings;
import org.mpfl.runtime.host.EngineAnnouncer;
import org.mpfl.runtime.host.ServiceHost;

/**
 * Starts the MPFL service host of the web application when Tomcat starts it, before the servlets:
 * a {@link ServiceHost} whose HTTP is Tomcat's ({@link ServiceHost#startInContainer}), its Axis2
 * configuration context handed to the {@code AxisServlet} (servlet-context attribute
 * {@value #AXIS2_CONTEXT_ATTRIBUTE}), the host credential set (so deploy and {@code run} need the
 * engine's key for this host, as in {@code mpflc host}), and, with an engine, the
 * {@link EngineAnnouncer} that registers it. Settings: {@link WebAppSettings}.
 *
 * <p>The application must be deployed at the context path {@code /axis2} ({@code webapps/axis2.war}):
 * service URLs are {@code …/axis2/services/TYPE} everywhere in MPFL. A missing or bad setting stops
 * the application from starting, with the reason in Tomcat's log; it never starts open.
 */
public final class MpiwsWebApp implements ServletContextListener {
    /** Where {@code AxisServlet} looks for a configuration context made for it. */
    public static final String AXIS2_CONTEXT_ATTRIBUTE = "CONFIGURATION_CONTEXT";
    /** Servlet-context attribute holding the {@link ServiceHost} (for the deploy servlet and the WSDL filter). */
    public static final String HOST_ATTRIBUTE = "org.mpfl.serviceHost";
    /** The context path the application must have. */
    public static final String CONTEXT_PATH = MpiwsNames.SERVICES_PATH.substring(0, MpiwsNames.SERVICES_PATH.indexOf('/', 1));

    private ServiceHost host;
    private EngineAnnouncer announcer;

    @Override
    public void contextInitialized(ServletContextEvent event) {
        ServletContext sc = event.getServletContext();
        try {
            if (!CONTEXT_PATH.equals(sc.getContextPath())) {
                throw new IOException("the MPIWS web application must be deployed at " + CONTEXT_PATH + " (webapps/axis2.war),"
                        + " not at '" + sc.getContextPath() + "': service URLs are " + MpiwsNames.SERVICES_PATH + "TYPE");
            }
            String base = System.getProperty("catalina.base");
            WebAppSettings s = WebAppSettings.read(sc::getInitParameter, base == null ? null : Path.of(base), ProtocolSettings::environment);
            String hostId = s.credential() == null ? null : s.credential().hostId();
            try {
                host = ServiceHost.startInContainer(new ServiceHost.Options(s.bind(), 0, s.servicesDir(), hostId, s.advertise(),
                        s.binary(), TlsSettings.NONE), s.baseUrl());
            } catch (java.io.UncheckedIOException e) {
                if (e.getMessage() == null || !e.getMessage().contains("binary channel")) {
                    throw e;
                }
                // the binary channel's socket: say which setting chose its address
                throw new IOException(e.getMessage() + " (" + WebAppSettings.BIND + "=" + s.bind() + ": an address of this machine,"
                        + " or " + WebAppSettings.BINARY + "=false)", e);
            }
            host.setCredential(s.credential());
            sc.setAttribute(AXIS2_CONTEXT_ATTRIBUTE, host.axis2Context());
            sc.setAttribute(HOST_ATTRIBUTE, host);
            if (s.engineUrl() != null) {
                announcer = new EngineAnnouncer(host, s.engineUrl(), s.credential(), s.capacity(), false, s.site());
                host.onDeploy(announcer::reannounce);
                announcer.start();
            }
            String advertised = java.net.URI.create(s.baseUrl()).getHost();
            if (s.baseUrl().startsWith("http:") && !TlsSettings.isLoopback(advertised)) {
                // the TLS of the SOAP endpoint is Tomcat's connector's; say loudly when it is off
                sc.log("WARNING: this MPFL host in Tomcat is reached at " + s.baseUrl() + " without TLS: anyone on the network"
                        + " can read and alter every message between ranks (workflow data, domain tokens and proofs, service"
                        + " archives with their deploy credential) and can impersonate this host. Give Tomcat an HTTPS"
                        + " connector and set " + WebAppSettings.BASE_URL + " to its https:// address (docs/deployment.md, Tomcat).");
            }
            if (s.binary() && TlsSettings.isLoopback(s.bind()) && !TlsSettings.isLoopback(advertised)) {
                // the SOAP endpoint is reachable from elsewhere, the binary channel is not: ranks on other
                // machines fall back to SOAP, or fail where binary is forced
                sc.log("WARNING: this MPFL host's binary channel listens on " + s.bind() + " only (" + WebAppSettings.BIND
                        + " is not set, or loopback) while the host is reached at " + s.baseUrl() + ": hosts on other machines"
                        + " cannot reach it. For more than one machine set " + WebAppSettings.BIND + " to this machine's address"
                        + " (docs/deployment.md, Tomcat).");
            }
            sc.log("MPFL host " + host.hostId() + " in Tomcat at " + host.baseUrl() + MpiwsNames.SERVICES_PATH
                    + " binary " + (host.binaryAddress() == null ? "none" : host.binaryAddress())
                    + ", capacity " + s.capacity() + ", site " + s.site()
                    + (s.engineUrl() == null ? ", no engine: deploy and run from this machine only" : ", engine " + s.engineUrl()));
        } catch (IOException | RuntimeException e) {
            contextDestroyed(event);
            sc.log("MPFL host did not start: " + e.getMessage());
            // Tomcat marks the application as failed: nothing is served
            throw new IllegalStateException("MPFL host did not start: " + e.getMessage(), e);
        }
    }

    @Override
    public void contextDestroyed(ServletContextEvent event) {
        if (announcer != null) {
            announcer.close();
            announcer = null;
        }
        if (host != null) {
            host.close();
            host = null;
        }
    }
}
