package org.mpfl.compiler.gen;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashSet;
import java.util.Set;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.mpfl.ir.plan.DeploymentPlan;
import org.mpfl.ir.plan.PlanJson;
import org.mpfl.ir.plan.PlanLibrary;
import org.mpfl.ir.plan.PlanProcess;
import org.mpfl.ir.plan.RuntimeBinding;
import org.mpfl.ir.plan.ServiceProgram;
import org.mpfl.protocol.MpiwsNames;
import org.mpfl.protocol.MpiwsWsdl;

/**
 * Writes the Axis2 service archive ({@code .aar}) of one process:
 * <pre>
 *   META-INF/services.xml      descriptor: service name = the process's service type, runtime parameters
 *   META-INF/SERVICE.wsdl      the MPIWS operations (SOAP 1.2, document/literal)
 *   mpfl/program.json          {@link ServiceProgram}: the process's typed IR
 *   mpfl/plan.json             the whole deployment plan
 *   lib/*.jar                  the workflow's library jars (and, with a {@link RuntimeBundle}, the runtime's)
 *   kernels/*                  the workflow's other libraries: Python files, package directories, zips, executables
 * </pre>
 * By default the MPFL runtime jars are not bundled: an MPFL service host provides them. With a
 * {@link RuntimeBundle} ({@code mpflc compile --bundle-runtime}) they are, and the archive also runs in
 * a stock Axis2 container. Entries have a fixed
 * timestamp so that the same document always yields byte-identical archives.
 */
public final class ServiceArchiveWriter {
    /** 2000-01-01T00:00:00Z: archives are reproducible. */
    private static final long FIXED_TIME = 946_684_800_000L;

    private ServiceArchiveWriter() {
    }

    /** The archive entry of the WSDL of a service type. */
    public static String wsdlEntry(String service) {
        return "META-INF/" + service + ".wsdl";
    }

    /**
     * Writes the archive of {@code process} to {@code target} (atomically: a half-written archive is never left behind).
     *
     * @param documentDirectory where library paths of the plan are resolved
     */
    public static void write(DeploymentPlan plan, PlanProcess process, Path documentDirectory, Path target) throws IOException {
        write(plan, process, documentDirectory, target, null);
    }

    /**
     * Writes the archive of {@code process}, with the runtime jars of {@code runtime} under {@code lib/}
     * unless it is {@code null}.
     */
    public static void write(DeploymentPlan plan, PlanProcess process, Path documentDirectory, Path target,
            RuntimeBundle runtime) throws IOException {
        // not Files.createTempFile: its owner-only permissions would follow the archive after the move,
        // and a service host running as another user could not read it
        Path temporary = target.resolveSibling(target.getFileName() + ".part");
        try {
            try (OutputStream file = Files.newOutputStream(temporary); ZipOutputStream zip = new ZipOutputStream(file)) {
                Set<String> written = new HashSet<>();
                entry(zip, written, "META-INF/services.xml", ServiceDescriptor.of(plan, process).getBytes(StandardCharsets.UTF_8));
                entry(zip, written, wsdlEntry(process.service()), wsdl(plan, process).getBytes(StandardCharsets.UTF_8));
                ServiceProgram program = new ServiceProgram(plan.workflow(), plan.version(), plan.sourceSha256(),
                        process.name(), process.service(), process.program());
                entry(zip, written, RuntimeBinding.PROGRAM_ENTRY, PlanJson.toBytes(program));
                entry(zip, written, RuntimeBinding.PLAN_ENTRY, PlanJson.toBytes(plan));
                for (PlanLibrary library : plan.libraries()) {
                    Path source = documentDirectory.resolve(library.path());
                    if (Files.isDirectory(source)) {
                        directory(zip, written, source, library.archiveEntry());
                    } else {
                        try (InputStream in = Files.newInputStream(source)) {
                            entry(zip, written, library.archiveEntry(), in.readAllBytes());
                        }
                    }
                }
                if (runtime != null) {
                    for (java.util.Map.Entry<String, byte[]> jar : runtime.entries().entrySet()) {
                        entry(zip, written, jar.getKey(), jar.getValue());
                    }
                }
            }
            Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(temporary);
        }
    }

    /**
     * The WSDL text of a process's service, from the protocol's one template ({@link MpiwsWsdl}). The
     * address is a placeholder the host rewrites on deployment.
     */
    public static String wsdl(DeploymentPlan plan, PlanProcess process) {
        return MpiwsWsdl.of(process.service(), "MPFL workflow " + plan.workflow() + ", process " + process.name(),
                "http://localhost:8080" + MpiwsNames.SERVICES_PATH + process.service());
    }

    /** A library directory (a Python package, an executable's files): its files in name order, without Python's caches. */
    private static void directory(ZipOutputStream zip, Set<String> written, Path directory, String entryPrefix) throws IOException {
        java.util.List<Path> files;
        try (java.util.stream.Stream<Path> walk = Files.walk(directory)) {
            files = walk.filter(Files::isRegularFile)
                    .filter(f -> !directory.relativize(f).toString().contains("__pycache__"))
                    .sorted().toList();
        }
        for (Path file : files) {
            String relative = directory.relativize(file).toString().replace(java.io.File.separatorChar, '/');
            entry(zip, written, entryPrefix + "/" + relative, Files.readAllBytes(file));
        }
    }

    private static void entry(ZipOutputStream zip, Set<String> written, String name, byte[] content) throws IOException {
        if (!written.add(name)) {
            throw new IOException("two files would become archive entry " + name
                    + " (libraries with the same file name in different directories?)");
        }
        ZipEntry entry = new ZipEntry(name);
        entry.setTime(FIXED_TIME);
        zip.putNextEntry(entry);
        zip.write(content);
        zip.closeEntry();
    }
}
