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
import org.mpfl.ir.plan.RuntimeBinding;
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
        return () -> new RankInterpreter(interpreted);
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
