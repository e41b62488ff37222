package org.mpfl.runtime.host;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.axis2.AxisFault;
import org.apache.axis2.context.ConfigurationContext;
import org.apache.axis2.context.ConfigurationContextFactory;

/**
 * Builds the one Axis2 {@link ConfigurationContext} of a service-host JVM from a private repository
 * directory. The configuration is the kernel's bundled {@code axis2_default.xml} with the changes
 * the Axis2 2.0 findings call for: hot deployment off (deployment happens at start), MTOM on, the
 * RPC receivers (which live in axis2-adb, not on our class path) replaced by the RawXML ones, and
 * the JAX-WS service-builder extension removed.
 */
final class Axis2Setup {
    /**
     * Global parameter of a service host's Axis2 configuration: tells the {@link ContainerServiceLifeCycle}
     * of generated services that the host binds them (not a stock container). Not named like
     * {@link ServiceHost#HOST_PARAMETER}: services inherit global parameters.
     */
    static final String HOST_MARKER = "mpfl.hostConfiguration";
    private static final String DEFAULT_CONFIG = "/org/apache/axis2/deployment/axis2_default.xml";

    private Axis2Setup() {
    }

    /** The edited configuration text. */
    static String configuration() throws IOException {
        String xml;
        try (InputStream in = org.apache.axis2.deployment.DeploymentEngine.class.getResourceAsStream(DEFAULT_CONFIG)) {
            if (in == null) {
                throw new IOException("axis2_default.xml not found in the axis2-kernel jar");
            }
            xml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        xml = replaceRequired(xml, "<parameter name=\"hotdeployment\">true</parameter>",
                "<parameter name=\"hotdeployment\">false</parameter>");
        xml = replaceRequired(xml, "<parameter name=\"enableMTOM\">false</parameter>",
                "<parameter name=\"enableMTOM\">true</parameter>");
        // no stack traces of the host in faults sent to arbitrary clients
        xml = xml.replace("<parameter name=\"sendStacktraceDetailsWithFaults\">true</parameter>",
                "<parameter name=\"sendStacktraceDetailsWithFaults\">false</parameter>");
        xml = xml.replace("org.apache.axis2.rpc.receivers.RPCInOnlyMessageReceiver",
                "org.apache.axis2.receivers.RawXMLINOnlyMessageReceiver");
        xml = xml.replace("org.apache.axis2.rpc.receivers.RPCMessageReceiver",
                "org.apache.axis2.receivers.RawXMLINOutMessageReceiver");
        xml = xml.replaceAll("<serviceBuilderExtension name ?=\"jwsbuilderExt\"[^>]*/>", "");
        return xml;
    }

    private static String replaceRequired(String xml, String from, String to) throws IOException {
        if (!xml.contains(from)) {
            throw new IOException("unexpected axis2_default.xml: no " + from);
        }
        return xml.replace(from, to);
    }

    /**
     * Creates the repository (with {@code services/} pointing at {@code servicesDir} if given) and
     * the configuration context; deploys the {@code .aar} files found there.
     */
    static ConfigurationContext create(Path repository, Path servicesDir) throws IOException {
        return create(repository, servicesDir, false);
    }

    /**
     * {@link #create(Path, Path)}; with {@code inServletContainer} the HTTP transport receiver is the
     * servlet's ({@code AxisServletListener}), so that nothing of Axis2's opens a socket of its own (the
     * default's {@code SimpleHTTPServer} on port 6060 would start with the container's listener manager).
     */
    static ConfigurationContext create(Path repository, Path servicesDir, boolean inServletContainer) throws IOException {
        Files.createDirectories(repository);
        Path services = repository.resolve("services");
        if (servicesDir != null) {
            Path target = servicesDir.toAbsolutePath();
            if (!Files.isDirectory(target)) {
                throw new IOException("services directory " + target + " does not exist");
            }
            if (!Files.exists(services, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                Files.createSymbolicLink(services, target);
            }
        } else {
            Files.createDirectories(services);
        }
        Path axis2Xml = repository.resolve("axis2.xml");
        String config = configuration();
        if (inServletContainer) {
            config = replaceRequired(config, "class=\"org.apache.axis2.transport.http.SimpleHTTPServer\">\n        <parameter name=\"port\">6060</parameter>",
                    "class=\"org.apache.axis2.transport.http.AxisServletListener\">");
        }
        Files.writeString(axis2Xml, config.replaceFirst("(<axisconfig[^>]*>)",
                "$1\n    <parameter name=\"" + HOST_MARKER + "\">true</parameter>"));
        try {
            return ConfigurationContextFactory.createConfigurationContextFromFileSystem(
                    repository.toString(), axis2Xml.toString());
        } catch (AxisFault e) {
            throw new IOException("Axis2 configuration failed: " + e.getMessage(), e);
        }
    }
}
