package org.mpfl.runtime.interp.kernel;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.mpfl.runtime.settings.RuntimeSettings;

/**
 * Where a program's kernel libraries are on this machine — the {@code <library>} entries that are not
 * jars ({@code .py} files, package directories, {@code .zip}s, directories of executables) — and what
 * follows from them: the Python path of its workers and the executable a {@code <compute command>}
 * names. From a service archive they are unpacked once per deployment ({@link #unpack}); embedded
 * programs use the document's directory ({@link #inDirectory}).
 */
public final class KernelLibraries {
    /** The archive folder of kernel libraries (the compiler's {@code PlanBuilder.KERNELS_DIRECTORY}). */
    public static final String ARCHIVE_FOLDER = "kernels/";
    private static final KernelLibraries NONE = new KernelLibraries(Map.of(), null, false);

    /** Library path as written in the document → its file or directory here. */
    private final Map<String, Path> libraries;
    private final Path workingDirectory;
    /** Unpacked from an archive (a copy of ours, whose mode bits may be set), not the user's own files. */
    private final boolean unpacked;

    private KernelLibraries(Map<String, Path> libraries, Path workingDirectory, boolean unpacked) {
        this.libraries = Map.copyOf(libraries);
        this.workingDirectory = workingDirectory;
        this.unpacked = unpacked;
    }

    /** A program without kernel libraries. */
    public static KernelLibraries none() {
        return NONE;
    }

    /** The libraries of a document in {@code directory} (embedding, tests): {@code paths} as written. */
    public static KernelLibraries inDirectory(Path directory, List<String> paths) {
        Map<String, Path> found = new LinkedHashMap<>();
        for (String p : paths) {
            if (!p.endsWith(".jar")) {
                found.put(p, directory.resolve(p).toAbsolutePath().normalize());
            }
        }
        return new KernelLibraries(found, directory.toAbsolutePath(), false);
    }

    /**
     * Unpacks the {@code kernels/} entries of a service archive into a new directory (removed when the
     * JVM exits) and maps each library path to its place there.
     *
     * @param entries library path as written → its archive entry ({@code kernels/NAME})
     */
    public static KernelLibraries unpack(Path archive, Map<String, String> entries) throws IOException {
        Map<String, String> kernels = new LinkedHashMap<>();
        entries.forEach((path, entry) -> {
            if (entry.startsWith(ARCHIVE_FOLDER)) {
                kernels.put(path, entry);
            }
        });
        if (kernels.isEmpty()) {
            return NONE;
        }
        // made, filled and recorded for the exit's removal at once: a Ctrl-C meanwhile leaves no directory
        Path root = WorkerLeftovers.unlessExiting(() -> fill(WorkerLeftovers.deleteTreeAtExit(KernelScratch.LIBRARIES.create()),
                archive));
        Map<String, Path> found = new LinkedHashMap<>();
        kernels.forEach((path, entry) -> found.put(path, root.resolve(entry.substring(ARCHIVE_FOLDER.length()))));
        return new KernelLibraries(found, root, true);
    }

    /** Copies the archive's (a directory's or a zip's) {@code kernels/} entries into {@code root}. */
    private static Path fill(Path root, Path archive) throws IOException {
        if (Files.isDirectory(archive)) {
            Path from = archive.resolve(ARCHIVE_FOLDER);
            if (Files.isDirectory(from)) {
                try (Stream<Path> walk = Files.walk(from)) {
                    for (Path f : walk.filter(Files::isRegularFile).toList()) {
                        Path to = root.resolve(from.relativize(f).toString());
                        Files.createDirectories(to.getParent());
                        Files.copy(f, to, StandardCopyOption.REPLACE_EXISTING);
                    }
                }
            }
        } else {
            try (ZipFile zip = new ZipFile(archive.toFile())) {
                for (ZipEntry e : java.util.Collections.list(zip.entries())) {
                    if (e.isDirectory() || !e.getName().startsWith(ARCHIVE_FOLDER)) {
                        continue;
                    }
                    Path to = root.resolve(e.getName().substring(ARCHIVE_FOLDER.length())).normalize();
                    if (!to.startsWith(root)) {
                        throw new IOException("archive entry " + e.getName() + " points outside its folder");
                    }
                    Files.createDirectories(to.getParent());
                    try (InputStream in = zip.getInputStream(e)) {
                        Files.copy(in, to, StandardCopyOption.REPLACE_EXISTING);
                    }
                }
            }
        }
        return root;
    }

    /** Whether there are any. */
    public boolean isEmpty() {
        return libraries.isEmpty();
    }

    /** Where workers start (their current directory), or null. */
    Path workingDirectory() {
        return workingDirectory;
    }

    /**
     * The Python path of workers: a {@code .py} file's directory, a package directory's parent (a
     * directory with {@code __init__.py}), any other directory itself, a {@code .zip} itself.
     */
    List<Path> pythonPath() {
        List<Path> path = new ArrayList<>();
        for (Path p : libraries.values()) {
            Path entry;
            if (Files.isDirectory(p)) {
                entry = Files.isRegularFile(p.resolve("__init__.py")) ? p.getParent() : p;
            } else if (p.toString().endsWith(".zip")) {
                entry = p;
            } else {
                entry = p.getParent();
            }
            if (entry != null && !path.contains(entry)) {
                path.add(entry);
            }
        }
        return path;
    }

    /** The {@code MPFL_KERNEL_PATH} text of {@link #pythonPath()}. */
    String pythonPathText() {
        return String.join(File.pathSeparator, pythonPath().stream().map(Path::toString).toList());
    }

    /**
     * The executable a {@code <compute command>} names: a path inside a library directory (or a library
     * file itself), or an absolute path inside a library or one of {@code allowedDirectories}.
     */
    Path command(String written, List<Path> allowedDirectories) throws KernelFailure {
        Path resolved = null;
        if (Path.of(written).isAbsolute()) {
            Path p = Path.of(written).normalize();
            boolean allowed = libraries.values().stream().anyMatch(p::startsWith)
                    || allowedDirectories.stream().anyMatch(d -> p.startsWith(d.toAbsolutePath().normalize()));
            if (!allowed) {
                throw KernelFailure.workflow("command " + written + " is outside the workflow's libraries; a host runs such"
                        + " a command only from a directory it allows (mpflc host --allow-command-dir DIR; for mpflc run"
                        + " --local, MPFL_JAVA_OPTS=-D" + RuntimeSettings.KERNEL_COMMAND_DIRS.name() + "=DIR)");
            }
            resolved = p;
        } else {
            for (Map.Entry<String, Path> library : libraries.entrySet()) {
                String dir = library.getKey().endsWith("/") ? library.getKey() : library.getKey() + "/";
                if (written.equals(library.getKey())) {
                    resolved = library.getValue();
                } else if (written.startsWith(dir)) {
                    Path candidate = library.getValue().resolve(written.substring(dir.length())).normalize();
                    if (candidate.startsWith(library.getValue())) {
                        resolved = candidate;
                    }
                }
            }
            if (resolved == null) {
                throw KernelFailure.workflow("command " + written + " is not inside a <library> of the workflow"
                        + " (name a library directory, e.g. <library path=\"bin\"/>, and the command in it)");
            }
        }
        if (!Files.isRegularFile(resolved)) {
            throw KernelFailure.workflow("command " + written + " does not exist here (" + resolved + ")");
        }
        if (!Files.isExecutable(resolved) && unpacked && resolved.startsWith(workingDirectory)) {
            // archive entries lose their mode bits: an unpacked command is made executable again
            resolved.toFile().setExecutable(true, true);
        }
        if (!Files.isExecutable(resolved)) {
            throw KernelFailure.workflow("command " + written + " is not executable (" + resolved + ")");
        }
        return resolved;
    }
}
