package org.mpfl.runtime.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.protocol.launch.HostProcesses;
import org.mpfl.testing.StartsProcesses;
import org.mpfl.testing.childjvm.ChildJvm;

/**
 * The full tier's child JVMs (org.mpfl.testing.childjvm): the test JVM's launcher session gave them a class
 * path of jars only and an archive trained on it, so a host started through the launcher maps the
 * runtime's classes from that archive; a host whose class path does not begin with the training's (a
 * stale archive) still starts, without it and without a word about it.
 */
@StartsProcesses
class ChildJvmArchiveTest {
    private static final String HOST_MAIN = HostProcesses.HOST_MAIN_CLASS;

    @Test
    void aChildHostMapsTheRuntimesClassesFromTheArchive(@TempDir Path dir) throws Exception {
        String archive = System.getProperty("mpfl.host.cdsArchive");
        assertNotNull(archive, "the full tier sets mpfl.childJvm.dir; its session trains the children's archive");
        assertTrue(Files.isRegularFile(Path.of(archive)), archive);
        for (String entry : HostProcesses.classPath().split(File.pathSeparator)) {
            assertFalse(Files.isDirectory(Path.of(entry)), "jars only: " + entry);
        }
        List<String> command = ChildJvm.command(List.of("-Xmx64m"), HOST_MAIN);
        assertTrue(command.contains("-XX:SharedArchiveFile=" + archive), command.toString());
        assertEquals(HostProcesses.classPath(), command.get(command.indexOf("-cp") + 1));

        Path loads = dir.resolve("class-load.txt");
        try (HostProcesses hosts = start(dir, loads)) {
            assertTrue(hosts.get(0).isAlive());
        }
        assertTrue(loaded(loads, HOST_MAIN).contains("source: shared objects file"), loaded(loads, HOST_MAIN));
    }

    @Test
    void aHostOnAClassPathTheArchiveWasNotMadeOnStartsWithoutIt(@TempDir Path dir) throws Exception {
        Path other = dir.resolve("other.jar");
        try (JarOutputStream empty = new JarOutputStream(Files.newOutputStream(other))) {
            empty.finish();
        }
        String before = System.getProperty("mpfl.host.classPath");
        System.setProperty("mpfl.host.classPath", other + File.pathSeparator + HostProcesses.classPath());
        Path loads = dir.resolve("class-load.txt");
        try (HostProcesses hosts = start(dir, loads)) {
            assertTrue(hosts.get(0).isAlive());
            String log = Files.readString(hosts.get(0).log());
            assertFalse(log.contains("[cds") || log.toLowerCase().contains("sharing"), "no word of the archive: " + log);
        } finally {
            if (before == null) {
                System.clearProperty("mpfl.host.classPath");
            } else {
                System.setProperty("mpfl.host.classPath", before);
            }
        }
        String line = loaded(loads, HOST_MAIN);
        assertFalse(line.contains("shared objects file"), line);
        assertTrue(line.contains("source: file:"), line);
    }

    private static HostProcesses start(Path dir, Path loads) throws Exception {
        return HostProcesses.builder().count(1).logDirectory(dir).jvmArg("-Xmx256m")
                .jvmArg("-Xlog:class+load=info:file=" + loads).start();
    }

    /** The class-load log's line of {@code className} (where the JVM took it from). */
    private static String loaded(Path loads, String className) throws Exception {
        return Files.readAllLines(loads).stream().filter(l -> l.contains(" " + className + " source:")).findFirst()
                .orElse("(" + className + " not in the class-load log)");
    }
}
