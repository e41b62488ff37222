package org.mpfl.engine.local;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.mpfl.protocol.launch.HostProcesses;

/**
 * What a local cluster's start has launched so far, so that a JVM stopped mid-start (SIGTERM, Ctrl-C) stops it
 * ({@link LocalCluster.Starting}): the cluster's own shutdown hook exists only once its engine has started, and a
 * stopped JVM runs no {@code finally}. Without it, {@code mpflc run --local --hosts N} stopped while its hosts started
 * left them running (until they noticed by themselves) and their logs in its temporary data directory.
 */
public final class StartGuard {
    private final List<Process> launched = new ArrayList<>();
    private boolean exiting;

    /** A guard for a start nobody stops from outside (its caller closes what it returns). */
    public StartGuard() {
    }

    /** Takes a host process as soon as it started; one started once the JVM exits is killed at once. */
    synchronized void launched(Process p) {
        if (exiting) {
            p.destroyForcibly(); // just started: it has made nothing of its own yet
            throw new IllegalStateException("this JVM is exiting: the local cluster's start was stopped");
        }
        launched.add(p);
    }

    /** Between the start's steps: fails once the JVM exits, so that the start ends and stops what it started. */
    synchronized void check() throws IOException {
        if (exiting) {
            throw new IOException("this JVM is exiting: the local cluster's start was stopped");
        }
    }

    /**
     * The JVM exits: no more hosts; those launched are asked to end (a host deletes its own temporary files on
     * the way out), all at once, and killed after the hosts' stop grace ({@link HostProcesses#stop(List)}).
     */
    void stop() {
        List<Process> hosts;
        synchronized (this) {
            exiting = true;
            hosts = List.copyOf(launched);
        }
        HostProcesses.stop(hosts);
    }
}
