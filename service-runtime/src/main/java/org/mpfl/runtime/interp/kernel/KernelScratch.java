package org.mpfl.runtime.interp.kernel;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;
import org.mpfl.ir.files.Orphans;

/**
 * The temporary directories of kernels (unpacked kernel libraries, the Python runtime module, a worker's
 * socket directory), named with this JVM's PID: the first one a JVM makes removes those a killed JVM left
 * ({@link Orphans}; a SIGKILL runs neither {@link WorkerLeftovers}' hook nor a rank's clean-up).
 */
enum KernelScratch {
    /** A workflow's kernel sources, unpacked from its archive. */
    LIBRARIES("mpfl-kernels-"),
    /** The Python runtime module the workers run. */
    PYTHON_RUNTIME("mpfl-kernel-py-"),
    /** A worker's control socket: short, a Unix socket's path has at most 107 bytes. */
    SOCKET("mpfl-k");

    private static final AtomicBoolean SWEPT = new AtomicBoolean();

    private final String prefix;
    private final Pattern withPid;

    KernelScratch(String prefix) {
        this.prefix = prefix;
        this.withPid = Pattern.compile(Pattern.quote(prefix) + "(\\d+)-\\d+");
    }

    /**
     * A new owner-only directory of this kind in the temporary directory. Made inside
     * {@link WorkerLeftovers#unlessExiting}, by a caller that records it there for removal.
     */
    Path create() throws IOException {
        if (SWEPT.compareAndSet(false, true)) {
            sweepOrphans(Path.of(System.getProperty("java.io.tmpdir")));
        }
        return Files.createTempDirectory(Orphans.named(prefix));
    }

    /** Removes the directories of every kind that JVMs now gone left in {@code directory}. */
    static void sweepOrphans(Path directory) {
        for (KernelScratch kind : List.of(values())) {
            Orphans.sweep(directory, kind.prefix + "*", kind.withPid);
        }
    }
}
