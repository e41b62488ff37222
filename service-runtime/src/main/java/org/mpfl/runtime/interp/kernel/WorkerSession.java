package org.mpfl.runtime.interp.kernel;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A kernel worker and every process it starts (a {@code subprocess.Popen}, a multiprocessing pool, a shell's
 * background job, their children), stopped together ({@link #stop}).
 *
 * <p>The worker is started through util-linux's {@code setsid}, so that it leads a session of its own: a child
 * of this JVM is never a process-group leader, so {@code setsid} calls {@code setsid()} and execs the worker in
 * place (same PID, same exit status: the {@link Process} is the worker's). Everything the worker starts inherits
 * that session id, and keeps it once the worker is gone and init adopted it — when
 * {@link ProcessHandle#descendants()} no longer finds it. {@link #stop} finds the members in {@code /proc}
 * (the session is the 6th field of {@code /proc/PID/stat}) and kills them. The session rather than the process
 * group: a child that makes a group of its own ({@code Popen(process_group=0)}, a shell with job control) is
 * still found; only a process that starts a session of its own ({@code setsid}, a daemon's double fork) leaves,
 * and is out of reach. Without {@code setsid} on the machine the worker runs in the JVM's session and only the
 * descendants it has at the stop are killed.
 *
 * <p>A session whose leader has exited and that has no live member is over for good (nothing is left to fork
 * into it), so once {@link #stop} saw that, later calls do nothing: a PID reused long after is never touched.
 */
final class WorkerSession {
    /** How long {@link #stop} keeps killing members that a dying member forked meanwhile. */
    static final long STOP_WAIT_MS = 2_000;
    private static final Path PROC = Path.of("/proc");
    private static final String SETSID = setsid();

    private final Process leader;
    private final boolean own;
    private volatile boolean over;

    private WorkerSession(Process leader, boolean own) {
        this.leader = leader;
        this.own = own;
    }

    /** Starts {@code builder}'s command as the leader of a new session (the builder's command gets {@code setsid} first). */
    static WorkerSession start(ProcessBuilder builder) throws IOException {
        if (SETSID == null) {
            return new WorkerSession(builder.start(), false);
        }
        List<String> command = new ArrayList<>(builder.command());
        command.add(0, SETSID);
        return new WorkerSession(builder.command(command).start(), true);
    }

    Process process() {
        return leader;
    }

    /**
     * The reason the worker could not be executed, when {@code setsid} said so (its first line of standard
     * error, exit status 126 or 127, before the worker ever connected), else null.
     */
    String execFailure(List<String> stderr) {
        if (!own || leader.isAlive() || stderr.isEmpty()) {
            return null;
        }
        int status = leader.exitValue();
        String first = stderr.get(0);
        if ((status == 126 || status == 127) && first.startsWith("setsid: ")) {
            return first.substring("setsid: ".length());
        }
        return null;
    }

    /**
     * Kills the worker and every live process of its session, again while a dying one forked more, for at most
     * {@link #STOP_WAIT_MS}; returns when none is left (or the bound passed). Never throws; an interrupt is kept
     * for the caller but does not cut the stop short.
     */
    void stop() {
        if (over) {
            return;
        }
        if (!own) {
            leader.descendants().forEach(ProcessHandle::destroyForcibly);
            leader.destroyForcibly();
            return;
        }
        long session = leader.pid();
        long self = ProcessHandle.current().pid();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STOP_WAIT_MS);
        boolean interrupted = false;
        try {
            while (true) {
                boolean leaderGone = !leader.isAlive(); // before the scan: nothing can fork into the session after it
                List<Long> members = members(session);
                members.remove(Long.valueOf(self));
                if (leaderGone && members.isEmpty()) {
                    over = true;
                    return;
                }
                leader.destroyForcibly();
                for (long pid : members) {
                    ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
                }
                if (System.nanoTime() > deadline) {
                    return;
                }
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The live (not zombie) processes whose session is {@code session}, from {@code /proc/PID/stat}. */
    static List<Long> members(long session) {
        List<Long> found = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(PROC, WorkerSession::isPid)) {
            for (Path entry : entries) {
                String stat;
                try {
                    stat = new String(Files.readAllBytes(entry.resolve("stat")), StandardCharsets.ISO_8859_1);
                } catch (IOException | SecurityException e) {
                    continue; // exited meanwhile
                }
                // "PID (COMM) STATE PPID PGRP SESSION …": COMM may hold spaces and ')', so fields follow the last ')'
                String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ", 5);
                if (fields.length < 5 || fields[0].equals("Z") || fields[0].equals("X")) {
                    continue;
                }
                if (Long.parseLong(fields[3]) == session) {
                    found.add(Long.parseLong(entry.getFileName().toString()));
                }
            }
        } catch (IOException | RuntimeException e) {
            // no /proc (or an unreadable one): nothing is found, the worker itself is still killed
        }
        return found;
    }

    private static boolean isPid(Path entry) {
        String name = entry.getFileName().toString();
        return !name.isEmpty() && name.chars().allMatch(c -> c >= '0' && c <= '9');
    }

    private static String setsid() {
        for (String candidate : List.of("/usr/bin/setsid", "/bin/setsid")) {
            if (Files.isExecutable(Path.of(candidate)) && Files.isDirectory(PROC.resolve("self"))) {
                return candidate;
            }
        }
        return null;
    }
}
