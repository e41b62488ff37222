package org.mpfl.engine.deploy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import org.mpfl.engine.registry.HostInfo;
import org.mpfl.engine.registry.HostRegistry;
import org.mpfl.protocol.digest.Sha256;

/**
 * Keeps the generated service archives the engine was given ({@code DATA/archives/NAME.aar}) and
 * installs them on hosts: on every live host when deployed (on all of them at once), and on a placed host that lacks the
 * service when a run starts (deploy-if-needed). An archive identical to the one the engine already
 * installed on a host is not sent again, so starting the same document twice does not restart its
 * services under a running run.
 *
 * <p>Every archive belongs to the projects it was deployed for ({@code DATA/archives/SERVICE.owners}, one project a
 * line): the project of the workflow or run it came with, or everyone ({@link #SHARED}) for an archive an admin
 * deployed alone ({@code POST /api/deployments}). A run is placed only on services its project may use
 * ({@link #usableBy}): the engine's archives of its own project or shared ones, and services installed on hosts by
 * hand (the engine holds no archive of them). Placement matched services by name alone before, so an operator of one
 * project could name another project's deployed service in a plan and run that project's code with their own
 * parameters. An archive of another project, or a service installed on the hosts by hand (every project's), is never
 * replaced under its name by a project's deployment ({@link ServiceTakenException}).
 */
public final class DeploymentService {
    private static final Pattern SERVICE_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_.-]{0,127}");
    /** The owner of archives every project may use: those an admin deployed alone. */
    public static final String SHARED = "*";
    /**
     * The project of archives stored before archives had owners: everything that existed before projects did
     * belongs to {@code default} (docs/security.md, "Users, roles and projects").
     */
    static final String LEGACY_PROJECT = "default";

    private final Path archiveDir;
    private final HostRegistry registry;
    private final ArchiveDeployer deployer;

    public DeploymentService(Path archiveDir, HostRegistry registry, ArchiveDeployer deployer) throws IOException {
        this.archiveDir = archiveDirectory(archiveDir);
        this.registry = registry;
        this.deployer = deployer;
    }

    /**
     * Creates the archive directory if need be. What stands in the way stops the engine's start with one line naming
     * the directory and why: the JDK's exception says only the path ({@code mpflc up} said "DATA/archives: already
     * exists" of a file there).
     */
    public static Path archiveDirectory(Path dir) throws IOException {
        return usableDirectory("the archive directory", dir);
    }

    /**
     * Creates {@code dir} (the engine's {@code what}: its data directory, its archive directory) if need be, or says in
     * one line what stands in the way: a file at its place or on its path, else the system's reason.
     */
    public static Path usableDirectory(String what, Path dir) throws IOException {
        try {
            return Files.createDirectories(dir);
        } catch (IOException e) {
            java.util.Optional<Path> file = fileInTheWay(dir);
            throw new IOException("cannot use " + what + " " + (file.isPresent()
                    ? dir + ": " + (file.get().equals(dir) ? "it" : file.get()) + " is a file, not a directory"
                    : org.mpfl.ir.cli.FileProblem.of(dir, e)), e);
        }
    }

    /** The directory itself or the nearest directory on its path that is something else (a file), if one is. */
    private static java.util.Optional<Path> fileInTheWay(Path dir) {
        for (Path p = dir.toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.exists(p)) {
                return Files.isDirectory(p) ? java.util.Optional.empty() : java.util.Optional.of(p.equals(dir.toAbsolutePath()) ? dir : p);
            }
        }
        return java.util.Optional.empty();
    }

    /**
     * Stores several archives and installs each on every live host, in the given order.
     *
     * @param archives {@code .aar} bytes by service type
     * @param project  the project they are deployed for ({@link #SHARED}: every project)
     * @return per service, the per-host results of {@link #deploy}
     * @throws ServiceTakenException if a name holds another project's archive (nothing of that one is deployed)
     */
    public Map<String, Map<String, String>> deployAll(Map<String, byte[]> archives, String project) throws IOException {
        Map<String, Map<String, String>> results = new LinkedHashMap<>();
        for (Map.Entry<String, byte[]> a : archives.entrySet()) {
            results.put(a.getKey(), deploy(a.getKey(), a.getValue(), project));
        }
        return results;
    }

    /**
     * Stores several archives under the names given and installs each on every live host, in the given
     * order: an archive whose service has another name is renamed first ({@link ServiceNames}: the
     * services of a workflow are deployed under qualified names so that workflows sharing a service
     * type name do not replace each other's service).
     *
     * @param archives {@code .aar} bytes by the name to deploy them under
     * @param project  the project they are deployed for
     * @return per name, the per-host results of {@link #deploy}
     * @throws IOException if an archive is no service archive with exactly one service
     * @throws ServiceTakenException if a name holds another project's archive
     */
    public Map<String, Map<String, String>> deployAllAs(Map<String, byte[]> archives, String project) throws IOException {
        Map<String, Map<String, String>> results = new LinkedHashMap<>();
        for (Map.Entry<String, byte[]> a : archives.entrySet()) {
            if (!SERVICE_NAME.matcher(a.getKey()).matches()) {
                throw new IllegalArgumentException("bad service name '" + a.getKey() + "'");
            }
            byte[] archive;
            try {
                archive = ArchiveDescriptor.renamed(a.getValue(), a.getKey());
            } catch (IOException e) {
                throw new IOException("service '" + a.getKey() + "': " + e.getMessage(), e);
            }
            results.put(a.getKey(), deploy(a.getKey(), archive, project));
        }
        return results;
    }

    /** Stores an archive every project may use ({@link #SHARED}) and installs it on every live host. */
    public Map<String, String> deploy(String service, byte[] archive) throws IOException {
        return deploy(service, archive, SHARED);
    }

    /**
     * A service name holds an archive of another project, and this one differs from it, or names a service installed
     * on the hosts by hand for every project: deploying it would replace that service on every host (what the others'
     * runs execute), so it is refused; the name is all that tells.
     */
    public static final class ServiceTakenException extends IOException {
        private static final long serialVersionUID = 1L;

        ServiceTakenException(String message) {
            super(message);
        }
    }

    /**
     * Stores an archive for a project and installs it on every live host; returns per-host results ("ok" or the
     * error). The same archive deployed again for another project becomes that project's too (identical code: a
     * document sent twice compiles to the same archive and name).
     *
     * @param project the project it is deployed for ({@link #SHARED}: every project)
     * @throws ServiceTakenException if the name holds a different archive that {@code project} may not use
     */
    public Map<String, String> deploy(String service, byte[] archive, String project) throws IOException {
        if (!SERVICE_NAME.matcher(service).matches()) {
            throw new IllegalArgumentException("bad service name '" + service + "'");
        }
        String digest = Sha256.hex(archive);
        store(service, archive, digest, project);
        Map<String, String> results = new LinkedHashMap<>();
        Map<String, CompletableFuture<String>> pushes = new LinkedHashMap<>();
        for (HostInfo h : registry.hosts()) {
            if (h.staticEntry()) {
                results.put(h.hostId(), "skipped (static host-file entry)");
                continue;
            }
            if (h.offers(service) && digest.equals(deployed.get(h.hostId() + "\u0000" + service))) {
                // same archive already there: redeploying would restart the service under running ranks
                results.put(h.hostId(), "ok");
                continue;
            }
            results.put(h.hostId(), null);
            // all hosts at once: each takes its time to install the archive (a run's start waited for the sum)
            pushes.put(h.hostId(), CompletableFuture.supplyAsync(() -> {
                try {
                    push(h, service, archive, digest);
                    return "ok";
                } catch (Exception e) {
                    return "failed: " + describe(e);
                }
            }, pushers));
        }
        // each push is bounded by the deployer's timeout
        pushes.forEach((host, push) -> results.put(host, push.join()));
        return results;
    }

    /** Stores an archive and its owners, unless the name is another project's (one deployment at a time decides). */
    private synchronized void store(String service, byte[] archive, String digest, String project) throws IOException {
        Set<String> owners = new TreeSet<>(owners(service));
        boolean same = hasArchive(service) && digest.equals(Sha256.hex(stored(service)));
        if (!owners.isEmpty() && !same && !owners.contains(project) && !owners.contains(SHARED)) {
            throw new ServiceTakenException("the service name '" + service + "' is taken by another project; deploy it under"
                    + " another name (name the workflow differently)");
        }
        if (owners.isEmpty() && !SHARED.equals(project) && !ServiceNames.qualified(service)
                && registry.hosts().stream().anyMatch(h -> h.offers(service))) {
            // installed on hosts by hand, for every project: one project's deployment would replace it for all, and
            // then keep the other projects' runs off it. Not a qualified name (W.vN.T, W.hHEX.T): only a deployment of
            // that workflow makes one, so hosts that offer it without the engine's archive kept it from an earlier
            // deployment (an engine started afresh), which this one's archive renews
            throw new ServiceTakenException("the service name '" + service + "' is installed on the hosts for every project;"
                    + " deploy it under another name (name the workflow differently), or as an admin for every project"
                    + " (POST /api/deployments)");
        }
        // a shared name stays shared; a project's becomes this project's too (identical, or its own new archive)
        owners.add(owners.contains(SHARED) ? SHARED : project);
        try {
            replace(service, ".aar", archive);
            replace(service, ".owners", (String.join("\n", owners) + "\n").getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new EngineStorageException("cannot store the archive of service '" + service + "' in " + archiveDir, e);
        }
    }

    /** Replaces {@code DATA/archives/SERVICE+SUFFIX} at once (written aside, then moved over it). */
    private void replace(String service, String suffix, byte[] bytes) throws IOException {
        Path tmp = Files.createTempFile(archiveDir, service, ".part");
        Files.write(tmp, bytes);
        Files.move(tmp, archiveDir.resolve(service + suffix), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** The stored archive of {@code service} (one {@link #hasArchive} says is there). */
    private byte[] stored(String service) throws EngineStorageException {
        Path file = archiveDir.resolve(service + ".aar");
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new EngineStorageException("cannot read " + file, e);
        }
    }

    /**
     * Threads for pushing an archive to several hosts at once (at most 16 at a time; idle ones end),
     * daemons: an engine's close need not stop them.
     */
    private final ExecutorService pushers = pushers();

    private static ExecutorService pushers() {
        AtomicInteger n = new AtomicInteger();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(16, 16, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "mpfl-deploy-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    /** Which archive (SHA-256) the engine installed per host and service. */
    private final Map<String, String> deployed = new java.util.concurrent.ConcurrentHashMap<>();

    private void push(HostInfo h, String service, byte[] archive, String digest) throws Exception {
        deployer.deploy(h, service, archive);
        registry.addService(h.hostId(), service);
        deployed.put(h.hostId() + "\u0000" + service, digest);
    }

    /**
     * What went wrong, never {@code null}: the JDK's HTTP client throws some exceptions without a
     * message (a {@link java.net.ConnectException} when the host's port is closed, e.g. a host that
     * stopped but has not yet left the registry), so the type and the cause's text stand in for it.
     */
    static String describe(Throwable e) {
        String message = e.getMessage();
        if (message != null && !message.isBlank()) {
            return message;
        }
        StringBuilder why = new StringBuilder(e.getClass().getName());
        for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
            why.append(": ").append(c.getMessage() != null && !c.getMessage().isBlank() ? c.getMessage() : c.getClass().getName());
            if (c.getMessage() != null && !c.getMessage().isBlank()) {
                break;
            }
        }
        return why.toString();
    }

    /** Whether an archive for {@code service} is stored. */
    public boolean hasArchive(String service) {
        return SERVICE_NAME.matcher(service).matches() && Files.isRegularFile(archiveDir.resolve(service + ".aar"));
    }

    /**
     * The projects the stored archive of {@code service} was deployed for ({@link #SHARED}: every project); empty
     * when the engine holds none (a service installed on hosts by hand). An archive stored before archives had owners
     * is {@value #LEGACY_PROJECT}'s.
     *
     * @throws EngineStorageException if the owners cannot be read
     */
    public Set<String> owners(String service) throws EngineStorageException {
        if (!hasArchive(service)) {
            return Set.of();
        }
        Path file = archiveDir.resolve(service + ".owners");
        if (!Files.isRegularFile(file)) {
            return Set.of(LEGACY_PROJECT);
        }
        Set<String> owners;
        try {
            owners = new TreeSet<>(Files.readAllLines(file));
        } catch (IOException e) {
            throw new EngineStorageException("cannot read " + file, e);
        }
        owners.removeIf(String::isBlank);
        return owners;
    }

    /**
     * Whether a run of {@code project} may be placed on {@code service}: a service the engine holds no archive of
     * (installed on hosts by hand, for everyone), or an archive of that project or a shared one. {@code project}
     * {@code null} (a run started inside the engine's JVM, not through REST, or stored before runs had a project):
     * every service, as before.
     */
    public boolean usableBy(String service, String project) {
        if (project == null) {
            return true;
        }
        try {
            Set<String> owners = owners(service);
            return owners.isEmpty() || owners.contains(project) || owners.contains(SHARED);
        } catch (IOException e) {
            return false; // an owner file that cannot be read gives nobody another project's service
        }
    }

    /** Stored service names. */
    public List<String> services() throws EngineStorageException {
        try (var s = Files.list(archiveDir)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".aar"))
                    .map(n -> n.substring(0, n.length() - 4)).sorted().toList();
        } catch (IOException e) {
            throw new EngineStorageException("cannot list " + archiveDir, e);
        }
    }

    /** Makes sure a host offers {@code service}, deploying the stored archive if it does not. */
    public void ensureDeployed(HostInfo host, String service) throws Exception {
        if (host.offers(service)) {
            return;
        }
        Optional<byte[]> archive = hasArchive(service) ? Optional.of(stored(service))
                : Optional.empty();
        if (archive.isEmpty()) {
            throw new IOException("host " + host.hostId() + " does not offer service '" + service + "' and no archive of it is deployed");
        }
        push(host, service, archive.get(), Sha256.hex(archive.get()));
    }
}
