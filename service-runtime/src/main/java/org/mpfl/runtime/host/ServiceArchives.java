package org.mpfl.runtime.host;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.axis2.AxisFault;
import org.apache.axis2.context.ConfigurationContext;
import org.apache.axis2.deployment.ServiceDeployer;
import org.apache.axis2.deployment.repository.util.DeploymentFileData;
import org.apache.axis2.description.AxisService;
import org.apache.axis2.description.Parameter;
import org.apache.axis2.engine.AxisConfiguration;
import org.mpfl.runtime.api.RankProgram;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Service archives ({@code .aar}: a jar with {@code META-INF/services.xml} naming the program class in
 * {@value ServiceHost#PROGRAM_PARAMETER}) in a {@link ServiceHost}: receiving one from the engine,
 * writing it into the host's repository, having Axis2 unpack and deploy it, and publishing the
 * service it defines as a service type ({@link MpiwsDispatch}). Archives present at start are bound
 * the same way ({@link #bindDeployed}).
 */
final class ServiceArchives {
    private static final Logger LOG = LoggerFactory.getLogger(ServiceArchives.class);

    private final Path repository;
    private final ConfigurationContext axis2;
    private final MpiwsDispatch dispatch;
    private volatile Runnable deployListener;

    ServiceArchives(Path repository, ConfigurationContext axis2, MpiwsDispatch dispatch) {
        this.repository = repository;
        this.axis2 = axis2;
        this.dispatch = dispatch;
    }

    /** Called after each successful deployment. */
    void onDeploy(Runnable listener) {
        this.deployListener = listener;
    }

    /** The body of an authorised deploy request: read up to {@link ServiceHost#MAX_ARCHIVE_BYTES}, then deployed. */
    ServiceHost.DeployAnswer receive(String name, InputStream body) throws IOException {
        byte[] archive = body.readNBytes(ServiceHost.MAX_ARCHIVE_BYTES + 1);
        if (archive.length > ServiceHost.MAX_ARCHIVE_BYTES) {
            return new ServiceHost.DeployAnswer(400, "deployment failed: the archive exceeds " + ServiceHost.MAX_ARCHIVE_BYTES + " bytes");
        }
        try {
            deploy(name, archive);
            return new ServiceHost.DeployAnswer(201, "deployed " + name);
        } catch (IOException | RuntimeException e) {
            LOG.warn("deployment of {} failed", name, e);
            // some failures (e.g. a NullPointerException inside Axis2) carry no message: name the type then
            return new ServiceHost.DeployAnswer(400, "deployment failed: "
                    + (e.getMessage() == null || e.getMessage().isBlank() ? e.toString() : e.getMessage()));
        }
    }

    /** See {@link ServiceHost#deployArchive}. */
    void deploy(String name, byte[] archive) throws IOException {
        if (name == null || !name.matches("[A-Za-z_][A-Za-z0-9_.\\-]*")) {
            throw new IllegalArgumentException("bad service name '" + name + "'");
        }
        Path file = repository.resolve("services").resolve(name + ".aar");
        if (dispatch.has(name) && Files.isRegularFile(file) && Arrays.equals(Files.readAllBytes(file), archive)) {
            // the same archive again (every run of a document deploys its archives): replacing it
            // would pull the service away from ranks of runs that are starting or running now
            return;
        }
        Path tmp = Files.createTempFile(repository, name, ".part");
        Files.write(tmp, archive);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
        try {
            removeWithGroup(axis2.getAxisConfiguration(), name);
            ServiceDeployer deployer = new ServiceDeployer();
            deployer.init(axis2);
            deployer.setDirectory("services");
            deployer.setExtension("aar");
            deployer.deploy(new DeploymentFileData(file.toFile(), deployer));
        } catch (AxisFault e) {
            throw new IOException("cannot deploy " + name + ": " + e.getMessage(), e);
        }
        String refused = bindDeployed().get(name);
        if (refused != null) {
            throw new IOException("cannot deploy " + name + ": " + refused);
        }
        if (!dispatch.has(name)) {
            throw new IOException("archive " + name + " deployed no service named " + name + " with a "
                    + ServiceHost.PROGRAM_PARAMETER + " parameter");
        }
        Runnable l = deployListener;
        if (l != null) {
            l.run();
        }
    }

    /**
     * Publishes the services deployed from archives that name a rank program and are not bound yet. An
     * archive whose program factory refuses it is removed again (so it does not block later
     * deployments); returns those refusals by service name.
     */
    Map<String, String> bindDeployed() throws AxisFault {
        Map<String, String> refused = new LinkedHashMap<>();
        AxisConfiguration cfg = axis2.getAxisConfiguration();
        for (AxisService svc : List.copyOf(cfg.getServices().values())) {
            Object cn = svc.getParameterValue(ServiceHost.PROGRAM_PARAMETER);
            if (cn == null || MpiwsDispatch.isBound(svc)) {
                continue;
            }
            String className = cn.toString().trim();
            ClassLoader loader = svc.getClassLoader() != null ? svc.getClassLoader() : getClass().getClassLoader();
            Supplier<RankProgram> factory;
            try {
                factory = programFactory(svc, className, loader);
            } catch (AxisFault e) {
                LOG.warn("service archive {} refused: {}", svc.getName(), e.getMessage());
                refused.put(svc.getName(), e.getMessage());
                removeWithGroup(cfg, svc.getName());
                dispatch.remove(svc.getName());
                continue;
            }
            dispatch.publish(svc, factory != null ? factory : ServicePrograms.newInstances(className, loader));
            LOG.info("service type {} deployed from an archive (program {}{})", svc.getName(),
                    factory != null ? "factory " : "", className);
        }
        return refused;
    }

    /**
     * Removes a service with its service group: removing the service alone leaves a group that
     * Axis2's dispatch then finds inconsistent with a redeployed service of the same name ("does not
     * belong to the service group").
     */
    private static void removeWithGroup(AxisConfiguration cfg, String serviceName) throws AxisFault {
        AxisService old = cfg.getService(serviceName);
        if (old == null) {
            return;
        }
        if (old.getAxisServiceGroup() != null && old.getAxisServiceGroup().getServiceGroupName() != null) {
            cfg.removeServiceGroup(old.getAxisServiceGroup().getServiceGroupName());
        }
        if (cfg.getService(serviceName) != null) {
            cfg.removeService(serviceName);
        }
    }

    /**
     * The program factory of an archived service ({@link ServicePrograms#factory}). Also used for generated
     * services in a stock Axis2 container ({@link ContainerRuntime}).
     */
    static Supplier<RankProgram> programFactory(AxisService svc, String className, ClassLoader loader)
            throws AxisFault {
        Map<String, String> parameters = new LinkedHashMap<>();
        for (Parameter p : svc.getParameters()) {
            if (p.getValue() instanceof String text) {
                parameters.put(p.getName(), text.trim());
            }
        }
        try {
            return ServicePrograms.factory(className, loader, svc.getFileName(), parameters);
        } catch (Exception e) {
            throw new AxisFault("service " + svc.getName() + ": " + (e.getMessage() == null ? e.toString() : e.getMessage()), e);
        }
    }
}
