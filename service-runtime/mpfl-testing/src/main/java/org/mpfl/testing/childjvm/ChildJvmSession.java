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
            ChildArchive archive = ChildArchive.prepare(Path.of(directory), System.getProperty("java.class.path"));
            System.setProperty(CLASS_PATH_PROPERTY, archive.classPath());
            if (archive.archive() != null) {
                System.setProperty(ARCHIVE_PROPERTY, archive.archive().toString());
            }
        } catch (Exception e) {
            System.err.println("child JVMs start without a class-data sharing archive: " + e);
        }
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
