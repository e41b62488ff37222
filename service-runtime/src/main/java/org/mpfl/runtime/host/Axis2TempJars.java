package org.mpfl.runtime.host;

import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import org.apache.axis2.description.AxisService;
import org.apache.axis2.engine.AxisConfiguration;
import org.mpfl.ir.files.FileTrees;

/**
 * The copies of service archives' {@code lib/*.jar} that Axis2 makes to load them ({@code TempFileManager}:
 * {@code java.io.tmpdir/axis2-tmp-N.tmp/axis2…NAME.jar}, world-readable, one directory per JVM, removed only
 * by the next Axis2 to start, never after a kill). A host deletes its services' copies when it closes (its ranks
 * are done: no class loads from them any more), and the directory goes at this JVM's exit (while the JVM lives,
 * Axis2 keeps writing into that one directory).
 */
final class Axis2TempJars {
    private static final Pattern AXIS2_TEMP_DIRECTORY = Pattern.compile("axis2-tmp-\\d+\\.tmp");
    private static final Set<Path> DIRECTORIES = ConcurrentHashMap.newKeySet();

    private Axis2TempJars() {
    }

    /** The temporary copies that the services deployed in {@code config} load classes from. */
    static Set<Path> of(AxisConfiguration config) {
        Set<Path> jars = new LinkedHashSet<>();
        for (AxisService service : config.getServices().values()) {
            if (service.getClassLoader() instanceof URLClassLoader loader) {
                for (URL url : loader.getURLs()) {
                    Path jar = temporaryCopy(url);
                    if (jar != null) {
                        jars.add(jar);
                    }
                }
            }
        }
        return jars;
    }

    /** Deletes the copies, and has their directories deleted at this JVM's exit. */
    static void delete(Set<Path> jars) {
        for (Path jar : jars) {
            FileTrees.deleteQuietly(jar);
            Path directory = jar.getParent();
            if (DIRECTORIES.add(directory)) {
                Runnable deleteDirectory = () -> {
                    FileTrees.deleteQuietly(directory);
                    FileTrees.deleteQuietly(directory.resolveSibling(directory.getFileName() + ".lck"));
                };
                try {
                    Runtime.getRuntime().addShutdownHook(new Thread(deleteDirectory, "mpfl-axis2-temp-delete"));
                } catch (IllegalStateException exiting) {
                    // a host closed by the JVM's own exit (SIGTERM): nothing of this JVM writes there any more
                    deleteDirectory.run();
                }
            }
        }
    }

    private static Path temporaryCopy(URL url) {
        if (!"file".equals(url.getProtocol())) {
            return null;
        }
        try {
            Path file = Path.of(url.toURI());
            Path parent = file.getParent();
            return parent != null && AXIS2_TEMP_DIRECTORY.matcher(parent.getFileName().toString()).matches()
                    && Files.isRegularFile(file) ? file : null;
        } catch (URISyntaxException | IllegalArgumentException e) {
            return null;
        }
    }
}
