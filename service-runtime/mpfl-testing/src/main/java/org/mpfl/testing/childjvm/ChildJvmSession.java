package org.mpfl.testing.childjvm;

import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;
import org.mpfl.protocol.launch.HostProcesses;

import java.nio.file.Path;

/**
 * Prepares the child JVMs' class path and archive once per test JVM, before its first test, when the build
 * asks for it ({@value #DIRECTORY_PROPERTY}: the full tier's {@code target/child-jvm}; registered as a JUnit
 * launcher session listener). Only a module whose class path holds the service host has children to speed
 * up. A failure costs the gain only: the children then start as before, and the reason is printed.
 */
public final class ChildJvmSession implements LauncherSessionListener {
    /** Where the archive and its jars are kept; unset or empty: no archive (the children start as before). */
    public static final String DIRECTORY_PROPERTY = "mpfl.childJvm.dir";
    /**
     * Another module's {@value #DIRECTORY_PROPERTY} whose pair this module's children may share, with this class
     * path's other entries appended ({@link ChildArchive#extend}): one training for the modules whose tests start
     * the same children (the engine's, mpfl-bench's and the samples'); unset, empty or unusable: a training here.
     */
    public static final String SHARED_PROPERTY = "mpfl.childJvm.shared";
    /** The local Maven repository: a jar of it that the shared pair lacks keeps this module from sharing it. */
    public static final String REPOSITORY_PROPERTY = "mpfl.childJvm.repository";
    /** {@code ProtocolSettings.HOST_CLASS_PATH}'s name. */
    static final String CLASS_PATH_PROPERTY = "mpfl.host.classPath";
    /** {@code ProtocolSettings.HOST_CDS_ARCHIVE}'s name. */
    static final String ARCHIVE_PROPERTY = "mpfl.host.cdsArchive";
    private static boolean prepared;

    @Override
    public void launcherSessionOpened(LauncherSession session) {
        prepare();
    }

    private static synchronized void prepare() {
        String directory = System.getProperty(DIRECTORY_PROPERTY);
        if (prepared || directory == null || directory.isBlank() || !onClassPath(HostProcesses.HOST_MAIN_CLASS)) {
            return;
        }
        prepared = true;
        try {
            String classPath = System.getProperty("java.class.path");
            ChildArchive archive = shared(Path.of(directory), classPath);
            if (archive == null) {
                archive = ChildArchive.prepare(Path.of(directory), classPath);
            }
            System.setProperty(CLASS_PATH_PROPERTY, archive.classPath());
            if (archive.archive() != null) {
                System.setProperty(ARCHIVE_PROPERTY, archive.archive().toString());
            }
        } catch (Exception e) {
            System.err.println("child JVMs start without a class-data sharing archive: " + e);
        }
    }

    private static ChildArchive shared(Path directory, String classPath) throws Exception {
        String shared = System.getProperty(SHARED_PROPERTY, "");
        if (shared.isBlank()) {
            return null;
        }
        String repository = System.getProperty(REPOSITORY_PROPERTY, "");
        return ChildArchive.extend(Path.of(shared), directory, classPath, repository.isBlank() ? null : Path.of(repository));
    }

    static boolean onClassPath(String className) {
        try {
            Class.forName(className, false, ChildJvmSession.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
