package org.mpfl.testing.childjvm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.jar.JarFile;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ChildArchive#extend}: a module's children start on another module's finished pair with this class path's
 * other entries appended (directories as jars), and only when nothing appended could shadow or be shadowed by the
 * pair's own jars. Files only: no JVM is started (the archive here is a stand-in; a child mapping a real shared
 * archive is mpfl-bench's SharedChildArchiveTest).
 */
class ChildArchiveExtendTest {
    @TempDir
    Path dir;
    Path shared;
    Path pair;
    Path repository;
    Path engineJar;
    Path library;

    @BeforeEach
    void aFinishedPair() throws Exception {
        repository = Files.createDirectories(dir.resolve("repository"));
        library = jar(repository.resolve("org/lib/lib/1.0/lib-1.0.jar"));
        engineJar = jar(dir.resolve("engine/target/engine-1.jar"));
        shared = dir.resolve("engine/target/child-jvm");
        pair = Files.createDirectories(shared.resolve("0123456789abcdef"));
        Files.writeString(pair.resolve("classpath.txt"), library + File.pathSeparator + engineJar + "\n");
        Files.writeString(pair.resolve(ChildArchive.ARCHIVE_FILE), "stand-in");
    }

    @Test
    void thisModulesJarAndClassesAreAppendedToThePairsClassPath() throws Exception {
        Path moduleJar = jar(dir.resolve("samples/target/samples.jar"));
        Path testClasses = Files.createDirectories(dir.resolve("samples/target/test-classes/org/x"));
        Files.writeString(testClasses.resolve("A.class"), "bytes");
        String ours = String.join(File.pathSeparator, engineJar.toString(), library.toString(), moduleJar.toString(),
                dir.resolve("samples/target/test-classes").toString());

        ChildArchive a = ChildArchive.extend(shared, dir.resolve("samples/target/child-jvm"), ours, repository);

        assertNotNull(a);
        assertEquals(pair.resolve(ChildArchive.ARCHIVE_FILE), a.archive(), "the pair's archive, not a training of our own");
        List<String> cp = List.of(a.classPath().split(File.pathSeparator));
        assertEquals(List.of(library.toString(), engineJar.toString(), moduleJar.toString()), cp.subList(0, 3),
                "the pair's class path first, as trained (the archive is mapped only then), ours after");
        assertEquals(4, cp.size(), cp.toString());
        try (JarFile classes = new JarFile(cp.get(3))) {
            assertNotNull(classes.getEntry("org/x/A.class"), "the test classes, as a jar: " + cp.get(3));
        }
        assertEquals(a, ChildArchive.extend(shared, dir.resolve("samples/target/child-jvm"), ours, repository),
                "the next test JVM of the module finds the same class path");
    }

    @Test
    void aLibraryThePairLacksMeansATrainingOfOurOwn() throws Exception {
        Path other = jar(repository.resolve("org/lib/lib/2.0/lib-2.0.jar"));
        assertNull(ChildArchive.extend(shared, dir.resolve("m/child-jvm"), engineJar + File.pathSeparator + other, repository),
                "a library of the repository in another version than the pair's would come after it, shadowed");
    }

    @Test
    void aJarNamedAsOneOfThePairsFromElsewhereMeansATrainingOfOurOwn() throws Exception {
        Path installed = jar(repository.resolve("org/mpfl/engine/1/engine-1.jar"));
        assertNull(ChildArchive.extend(shared, dir.resolve("m/child-jvm"), installed.toString(), null),
                "the engine's jar from the repository (a build of one module) would be shadowed by the pair's");
        Path copy = jar(dir.resolve("elsewhere/engine-1.jar"));
        assertNull(ChildArchive.extend(shared, dir.resolve("m/child-jvm"), copy.toString(), null));
    }

    @Test
    void anUnfinishedOrBrokenPairIsNotShared() throws Exception {
        assertNull(ChildArchive.extend(dir.resolve("nowhere"), dir.resolve("m/child-jvm"), engineJar.toString(), repository));
        Files.delete(engineJar);
        assertNull(ChildArchive.extend(shared, dir.resolve("m/child-jvm"), library.toString(), repository),
                "one of the pair's jars is gone");
        jar(engineJar);
        Files.delete(pair.resolve(ChildArchive.ARCHIVE_FILE));
        assertNull(ChildArchive.extend(shared, dir.resolve("m/child-jvm"), library.toString(), repository),
                "no archive: the training failed or is under way");
        assertTrue(Files.isDirectory(pair), "the other module's pair is left as it was");
    }

    @Test
    void aPairWithAJarRebuiltSinceItsTrainingIsNotShared() throws Exception {
        Path archive = pair.resolve(ChildArchive.ARCHIVE_FILE);
        Files.setLastModifiedTime(engineJar, FileTime.fromMillis(Files.getLastModifiedTime(archive).toMillis() + 60_000));
        assertNull(ChildArchive.extend(shared, dir.resolve("m/child-jvm"), engineJar.toString(), repository),
                "the JVM would not map an archive older than a jar of its class path (and would not say so)");
        Files.setLastModifiedTime(archive, FileTime.fromMillis(Files.getLastModifiedTime(engineJar).toMillis() + 1_000));
        assertNotNull(ChildArchive.extend(shared, dir.resolve("m/child-jvm"), engineJar.toString(), repository),
                "trained again after the rebuild: shared");
    }

    private static Path jar(Path path) throws Exception {
        Files.createDirectories(path.getParent());
        try (var out = new java.util.jar.JarOutputStream(Files.newOutputStream(path))) {
            out.finish();
        }
        return path;
    }
}
