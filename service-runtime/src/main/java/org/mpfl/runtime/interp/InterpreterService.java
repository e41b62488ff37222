package org.mpfl.runtime.interp;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Supplier;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.mpfl.ir.plan.DeploymentPlan;
import org.mpfl.ir.plan.PlanJson;
import org.mpfl.ir.plan.PlanProcess;
import org.mpfl.ir.plan.RuntimeBinding;
import org.mpfl.ir.plan.ServiceProgram;
import org.mpfl.runtime.interp.kernel.KernelLibraries;
import org.mpfl.runtime.api.RankProgram;
import org.mpfl.runtime.host.RankProgramFactory;

/**
 * The program class that {@code mpflc compile} names in a generated service's {@code services.xml}
 * ({@link RuntimeBinding#INTERPRETER_CLASS}): when the host deploys the archive it reads the
 * process's program and the deployment plan from the archive once, and every started rank gets a
 * {@link RankInterpreter} over them, with {@code compute} classes loaded from the archive's
 * {@code lib/} jars.
 */
public final class InterpreterService implements RankProgramFactory {

    @Override
    public Supplier<RankProgram> programs(ClassLoader serviceClassLoader, URL archive, Map<String, String> parameters)
            throws IOException {
        String programEntry = parameters.getOrDefault(RuntimeBinding.PROGRAM_ENTRY_PARAMETER, RuntimeBinding.PROGRAM_ENTRY);
        String planEntry = parameters.getOrDefault(RuntimeBinding.PLAN_ENTRY_PARAMETER, RuntimeBinding.PLAN_ENTRY);
        byte[] program = entry(archive, serviceClassLoader, programEntry);
        byte[] plan = entry(archive, serviceClassLoader, planEntry);
        InterpretedProgram interpreted;
        try {
            interpreted = InterpretedProgram.read(new ByteArrayInputStream(program), new ByteArrayInputStream(plan),
                    serviceClassLoader);
        } catch (IOException | RuntimeException e) {
            throw new IOException("the archive's program (" + programEntry + ") or plan (" + planEntry
                    + ") cannot be read: " + e.getMessage(), e);
        }
        String expected = parameters.get(RuntimeBinding.PROCESS_PARAMETER);
        if (expected != null && !expected.equals(interpreted.process().name())) {
            throw new IOException("services.xml says process '" + expected + "' but the program is of process '"
                    + interpreted.process().name() + "'");
        }
        interpreted.withKernels(kernelLibraries(archive, plan));
        return () -> new RankInterpreter(interpreted);
    }

    /**
     * The process's program from the plan object, as the archive of a workflow without libraries carries it
     * (program entry: the process of this plan; plan entry: this plan); no kernel libraries.
     */
    @Override
    public Supplier<RankProgram> programs(DeploymentPlan plan, PlanProcess process, ClassLoader loader) throws IOException {
        if (!plan.libraries().isEmpty()) {
            throw new IOException("workflow " + plan.workflow() + " has libraries, which only its service archives carry");
        }
        InterpretedProgram interpreted;
        try {
            interpreted = InterpretedProgram.of(new ServiceProgram(plan.workflow(), plan.version(), plan.sourceSha256(),
                    process.name(), process.service(), process.program()), plan, loader);
        } catch (RuntimeException e) {
            throw new IOException("the plan's program of process '" + process.name() + "' cannot run: " + e.getMessage(), e);
        }
        return () -> new RankInterpreter(interpreted);
    }

    /** The archive's kernel libraries, unpacked (none if the plan has no libraries outside jars). */
    private static KernelLibraries kernelLibraries(URL archive, byte[] planJson) throws IOException {
        DeploymentPlan plan = PlanJson.readPlan(new ByteArrayInputStream(planJson));
        Map<String, String> entries = new java.util.LinkedHashMap<>();
        plan.libraries().forEach(l -> entries.put(l.path(), l.archiveEntry()));
        if (entries.values().stream().noneMatch(e -> e.startsWith(KernelLibraries.ARCHIVE_FOLDER))) {
            return KernelLibraries.none();
        }
        if (archive == null || !"file".equals(archive.getProtocol())) {
            throw new IOException("the workflow has kernel libraries, but the archive is not a file (" + archive + ")");
        }
        try {
            return KernelLibraries.unpack(Path.of(archive.toURI()), entries);
        } catch (URISyntaxException | IllegalArgumentException e) {
            throw new IOException("archive location " + archive + " is not a file: " + e.getMessage(), e);
        }
    }

    /** An entry of the archive (a file or an exploded directory), else a resource of its class loader. */
    private static byte[] entry(URL archive, ClassLoader loader, String name) throws IOException {
        if (archive != null && "file".equals(archive.getProtocol())) {
            Path path;
            try {
                path = Path.of(archive.toURI());
            } catch (URISyntaxException | IllegalArgumentException e) {
                throw new IOException("archive location " + archive + " is not a file: " + e.getMessage(), e);
            }
            if (Files.isDirectory(path)) {
                Path file = path.resolve(name).normalize();
                if (file.startsWith(path) && Files.isRegularFile(file)) {
                    return Files.readAllBytes(file);
                }
            } else if (Files.isRegularFile(path)) {
                try (ZipFile zip = new ZipFile(path.toFile())) {
                    ZipEntry e = zip.getEntry(name);
                    if (e != null) {
                        try (InputStream in = zip.getInputStream(e)) {
                            return in.readAllBytes();
                        }
                    }
                }
            }
        }
        try (InputStream in = loader.getResourceAsStream(name)) {
            if (in == null) {
                throw new IOException("the service archive has no entry " + name);
            }
            return in.readAllBytes();
        }
    }
}
