package org.mpfl.runtime.host;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;
import org.mpfl.ir.files.FileTrees;
import org.mpfl.ir.plan.DeploymentPlan;
import org.mpfl.ir.plan.PlanProcess;
import org.mpfl.protocol.RankEvent;
import org.mpfl.protocol.Xml;
import org.mpfl.protocol.launch.InProcessRanks;
import org.mpfl.runtime.api.RankProgram;
import org.mpfl.runtime.p2p.MessagingHost;
import org.mpfl.runtime.p2p.MessagingSettings;
import org.mpfl.runtime.topology.CollectiveCommunicator;

/**
 * {@link InProcessRanks}: the ranks of one run as threads of this JVM. The same parts as a
 * {@link ServiceHost} below its Axis2 endpoint — a {@link MessagingHost} (rank registry, in-JVM transport;
 * no binary channel, no SOAP), a {@link RankTable} starting {@link HostedRank}s, programs loaded from the
 * generated archives as {@link ServiceArchives} has them loaded ({@link ServicePrograms}), or taken from the
 * plan object where there is no archive — with the events handed to the caller instead of posted to an engine.
 */
public final class InProcessHost implements InProcessRanks {

    @Override
    public Domain start(String hostId, DeploymentPlan plan, Map<String, byte[]> archives, List<Rank> ranks,
                        Consumer<RankEvent> events) throws Exception {
        HostMain.quietLogging();
        // a directory only for archives to unpack: a plan's own programs need no files
        Path dir = archives.isEmpty() ? null : Files.createTempDirectory("mpfl-inprocess-");
        // a JVM stopped mid-run (Ctrl-C, SIGTERM of mpflc run --local) deletes it too, not only a run that ends
        Thread atExit = dir == null ? null : new Thread(() -> FileTrees.deleteQuietly(dir), "mpfl-inprocess-delete");
        if (atExit != null) {
            Runtime.getRuntime().addShutdownHook(atExit);
        }
        List<URLClassLoader> loaders = new ArrayList<>();
        MessagingHost messaging = null;
        try {
            Map<String, Supplier<RankProgram>> programs = new LinkedHashMap<>();
            for (Map.Entry<String, byte[]> a : archives.entrySet()) {
                programs.put(a.getKey(), load(dir, a.getKey(), a.getValue(), loaders));
            }
            for (PlanProcess p : plan.processes()) {
                if (!programs.containsKey(p.service()) && ranks.stream().anyMatch(r -> r.serviceType().equals(p.service()))) {
                    programs.put(p.service(), fromPlan(plan, p));
                }
            }
            messaging = MessagingHost.inJvmOnly(hostId, MessagingSettings.fromSystemProperties());
            Started domain = new Started(messaging, dir, atExit, loaders);
            RankTable table = new RankTable(hostId, messaging.registry(), messaging.selector(),
                    req -> new ToCaller(events), programs::get, CollectiveCommunicator::world, () -> domain.closed);
            for (Rank r : ranks) {
                table.startRank(r.serviceType(), r.request());
            }
            return domain;
        } catch (OperationFault e) {
            closeAll(messaging, dir, atExit, loaders);
            throw new IOException(e.fault().reason(), e);
        } catch (Exception | Error e) {
            closeAll(messaging, dir, atExit, loaders);
            throw e;
        }
    }

    /** The program factory of a process from the plan object (no archive: the workflow has no libraries). */
    private static Supplier<RankProgram> fromPlan(DeploymentPlan plan, PlanProcess process) throws IOException {
        if (process.program() == null) {
            throw new IOException("service " + process.service() + ": no archive, and the plan has no program for process '"
                    + process.name() + "'");
        }
        try {
            return ServicePrograms.fromPlan(plan, process, InProcessHost.class.getClassLoader());
        } catch (Exception e) {
            throw new IOException("service " + process.service() + ": " + (e.getMessage() == null ? e.toString() : e.getMessage()), e);
        }
    }

    /**
     * The program factory of one archive: written to {@code dir}, its {@code lib/} jars unpacked next to it,
     * loaded by a class loader over both (as Axis2 loads a deployed {@code .aar}), its {@code services.xml}
     * parameters given to the program class it names.
     */
    private static Supplier<RankProgram> load(Path dir, String serviceType, byte[] archive, List<URLClassLoader> loaders)
            throws Exception {
        if (!serviceType.matches("[A-Za-z_][A-Za-z0-9_.\\-]*")) {
            throw new IOException("bad service name '" + serviceType + "'");
        }
        Path aar = dir.resolve(serviceType + ".aar");
        Files.write(aar, archive);
        List<URL> urls = new ArrayList<>();
        urls.add(aar.toUri().toURL());
        Map<String, String> parameters;
        try (ZipFile zip = new ZipFile(aar.toFile())) {
            ZipEntry descriptor = zip.getEntry("META-INF/services.xml");
            if (descriptor == null) {
                throw new IOException("archive " + serviceType + " has no META-INF/services.xml");
            }
            try (InputStream in = zip.getInputStream(descriptor)) {
                parameters = parameters(in);
            }
            Path lib = dir.resolve(serviceType + "-lib");
            for (ZipEntry e : java.util.Collections.list(zip.entries())) {
                String name = e.getName();
                if (!e.isDirectory() && name.startsWith("lib/") && name.endsWith(".jar") && name.indexOf('/', 4) < 0
                        && !name.contains("..")) {
                    Path jar = Files.createDirectories(lib).resolve(name.substring(4));
                    try (InputStream in = zip.getInputStream(e)) {
                        Files.copy(in, jar, StandardCopyOption.REPLACE_EXISTING);
                    }
                    urls.add(jar.toUri().toURL());
                }
            }
        }
        String className = parameters.get(ServiceHost.PROGRAM_PARAMETER);
        if (className == null) {
            throw new IOException("archive " + serviceType + " names no " + ServiceHost.PROGRAM_PARAMETER);
        }
        URLClassLoader loader = new URLClassLoader("mpfl-service-" + serviceType, urls.toArray(URL[]::new),
                InProcessHost.class.getClassLoader());
        loaders.add(loader);
        Supplier<RankProgram> factory;
        try {
            factory = ServicePrograms.factory(className, loader, aar.toUri().toURL(), parameters);
        } catch (Exception e) {
            throw new IOException("service " + serviceType + ": " + (e.getMessage() == null ? e.toString() : e.getMessage()), e);
        }
        return factory != null ? factory : ServicePrograms.newInstances(className, loader);
    }

    /** The text {@code <parameter name="…">} values of a {@code services.xml} (a secure reader: no DTDs, no entities). */
    private static Map<String, String> parameters(InputStream descriptor) throws IOException {
        Map<String, String> out = new LinkedHashMap<>();
        try {
            XMLStreamReader x = Xml.reader(descriptor);
            while (x.hasNext()) {
                if (x.next() == XMLStreamConstants.START_ELEMENT && x.getLocalName().equals("parameter")) {
                    String name = x.getAttributeValue(null, "name");
                    String value = x.getElementText();
                    if (name != null) {
                        out.put(name, value.trim());
                    }
                }
            }
        } catch (XMLStreamException | RuntimeException e) {
            throw new IOException("unreadable services.xml: " + e.getMessage(), e);
        }
        return out;
    }

    private static void closeAll(MessagingHost messaging, Path dir, Thread atExit, List<URLClassLoader> loaders) {
        if (messaging != null) {
            messaging.close();
        }
        for (URLClassLoader l : loaders) {
            try {
                l.close();
            } catch (IOException ignored) {
                // its files go with the directory, or with the JVM
            }
        }
        if (dir != null) {
            FileTrees.deleteQuietly(dir);
        }
        if (atExit != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(atExit);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs or ran: it deletes what was just deleted
            }
        }
    }

    /** The started ranks. */
    private static final class Started implements Domain {
        private final MessagingHost messaging;
        private final Path dir;
        private final Thread atExit;
        private final List<URLClassLoader> loaders;
        private volatile boolean closed;

        Started(MessagingHost messaging, Path dir, Thread atExit, List<URLClassLoader> loaders) {
            this.messaging = messaging;
            this.dir = dir;
            this.atExit = atExit;
            this.loaders = loaders;
        }

        @Override
        public void abort(String reason) {
            messaging.registry().abortAllLocally(reason);
        }

        @Override
        public void close() {
            closed = true;
            closeAll(messaging, dir, atExit, loaders);
        }
    }

    /** A rank's events, handed to the caller on the rank's own thread: nothing is queued, so nothing to flush. */
    private record ToCaller(Consumer<RankEvent> events) implements RankEvents {
        @Override
        public void post(RankEvent event) {
            events.accept(event);
        }

        @Override
        public void flush(java.time.Duration max) {
            // delivered already
        }
    }
}
