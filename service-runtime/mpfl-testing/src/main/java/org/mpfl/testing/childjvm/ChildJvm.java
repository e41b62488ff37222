package org.mpfl.testing.childjvm;

import org.mpfl.protocol.launch.HostProcesses;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line of every JVM a test starts from its own class path (the network lab's engine, relays and
 * node programs, the Slurm cluster's {@code mpflc}, a test's own child): the same class path and class-data
 * sharing archive as the service hosts {@link HostProcesses} starts ({@code mpfl.host.classPath},
 * {@code mpfl.host.cdsArchive}). In the full tier {@link ChildJvmSession} sets both once per test JVM — a
 * class path of jars only and an archive trained on it ({@link ChildArchive}) — so that each child maps
 * its classes instead of loading and verifying them one by one (a host's start: ~40 % less CPU). Without
 * them (the fast tier, an IDE) a child starts on this JVM's class path, as before.
 */
public final class ChildJvm {
    private static final List<String> SHORT_LIVED = List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

    private ChildJvm() {
    }

    /**
     * The collector and compiler flags of a JVM that lives seconds (a lab node, a relay, an engine a test starts):
     * the serial collector and C1 alone, because in so short a life C2's compilations and a parallel collector's
     * threads cost more CPU than they save, on a 2-core machine where several such JVMs start at once;
     * {@code maxHeap} is its {@code -Xmx} value ({@code "64m"}), or {@code null} for the JVM's default.
     */
    public static List<String> shortLivedOptions(String maxHeap) {
        List<String> options = new ArrayList<>();
        if (maxHeap != null) {
            options.add("-Xmx" + maxHeap);
        }
        options.addAll(SHORT_LIVED);
        return List.copyOf(options);
    }

    /**
     * {@code java}, the archive's options, this JVM's temporary directory, {@code jvmOptions}, {@code -cp} and the class path, then
     * {@code mainClass}: the caller adds the program's arguments. A child that starts JVMs of its own (an
     * engine's local hosts) passes the archive on to them.
     */
    public static List<String> command(List<String> jvmOptions, String mainClass) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> cds = HostProcesses.cdsArguments();
        cmd.addAll(cds);
        if (!cds.isEmpty()) {
            cmd.add("-D" + ChildJvmSession.ARCHIVE_PROPERTY + "=" + System.getProperty(ChildJvmSession.ARCHIVE_PROPERTY));
        }
        cmd.add(HostProcesses.tempDirectoryOption());
        cmd.addAll(jvmOptions);
        cmd.add("-cp");
        cmd.add(HostProcesses.classPath());
        cmd.add(mainClass);
        return cmd;
    }
}
