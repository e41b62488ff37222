package org.mpfl.bench;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.protocol.launch.HostProcesses;
import org.mpfl.testing.StartsProcesses;

/**
 * In a build of the reactor (CI's {@code mvn verify}) this module's full tier trains no archive of its own for its
 * children (the POM's {@code mpfl.childJvm.shared}): they start on the engine module's pair, this module's jar
 * appended, and a host started so maps the runtime's classes from the engine's archive while it finds this module's
 * own (the mediator extension) after it. Built alone ({@code -pl}), this module has the engine's jar from the local
 * repository, which the engine's pair would shadow with the one it was trained on: then it trains its own.
 */
@StartsProcesses
class SharedChildArchiveTest {

    @Test
    void aChildHostMapsFromTheEnginesArchiveAndFindsThisModulesClasses(@TempDir Path dir) throws Exception {
        String archive = System.getProperty("mpfl.host.cdsArchive");
        assertNotNull(archive, "the full tier's session set the children's archive");
        Path engineTarget = Path.of("..", "target").toAbsolutePath().normalize();
        boolean reactor = Stream.of(System.getProperty("java.class.path").split(File.pathSeparator))
                .anyMatch(e -> Path.of(e).toAbsolutePath().normalize().getParent().equals(engineTarget)
                        && Path.of(e).getFileName().toString().startsWith("enactment-engine-"));
        Path archiveDirectory = reactor ? engineTarget.resolve("child-jvm") : Path.of("target", "child-jvm").toAbsolutePath();
        assertTrue(Path.of(archive).toAbsolutePath().normalize().startsWith(archiveDirectory),
                (reactor ? "the engine module's archive, not one trained here (its full tier trains it earlier in the same build;"
                        + " when it did not run, its archive may be older than its jars, and then is not shared): "
                        : "an archive trained here: ") + archive);
        List<String> classPath = List.of(HostProcesses.classPath().split(File.pathSeparator));
        assertTrue(classPath.stream().anyMatch(e -> e.contains("mpfl-bench")), "this module's jar appended: " + classPath);

        Path loads = dir.resolve("class-load.txt");
        try (HostProcesses hosts = HostProcesses.builder().count(1).logDirectory(dir).jvmArg("-Xmx256m")
                .jvmArg("-Xlog:class+load=info:file=" + loads).hostArg("--extension").hostArg("mediator").start()) {
            assertTrue(hosts.get(0).isAlive());
        }
        List<String> lines = Files.readAllLines(loads);
        String host = line(lines, HostProcesses.HOST_MAIN_CLASS);
        assertTrue(host.contains("source: shared objects file"), host);
        String mediator = lines.stream().filter(l -> l.contains(" org.mpfl.bench.mediator.") && l.contains("source: file:"))
                .findFirst().orElse("(no class of org.mpfl.bench.mediator loaded)");
        assertTrue(mediator.contains("mpfl-bench"), "the extension from this module's appended jar: " + mediator);
    }

    private static String line(List<String> lines, String className) {
        return lines.stream().filter(l -> l.contains(" " + className + " source:")).findFirst()
                .orElse("(" + className + " not in the class-load log)");
    }
}
