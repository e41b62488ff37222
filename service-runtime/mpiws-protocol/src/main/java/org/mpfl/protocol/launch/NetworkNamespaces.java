package org.mpfl.protocol.launch;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * "Machines" on this one machine, for running MPFL across a real network stack without other
 * machines: network namespaces made with {@code ip netns} (iproute2), joined by veth pairs to a bridge
 * that lives in a namespace of its own (the switch), so that nothing touches this machine's own
 * interfaces and no traffic leaves the namespaces. Used by the tests' network lab
 * ({@code org.mpfl.testing.lab.NetworkLab}, which sits below the engine) and by {@code mpflc bench lab},
 * which start hosts inside them ({@link HostProcesses.Builder#launchPrefix}); needs root. Each user names its namespaces
 * {@code PREFIX<pid>-…} (the pid of the JVM that made them), so that {@link #removeLeftovers} can tell
 * what a JVM that died left behind.
 */
public final class NetworkNamespaces {
    /** How long one {@code ip} (or other) command may take. */
    public static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(30);

    private NetworkNamespaces() {
    }

    /** The exit code and the merged output of a command. */
    public record Result(int code, String out) {
    }

    /**
     * What this process lacks to make namespaces, in words ({@code root (this runs as uid 1000)}, a
     * working {@code ip netns}), or null when nothing is missing.
     */
    public static String missing() {
        try {
            Result id = exec(List.of("id", "-u"), Duration.ofSeconds(10));
            if (!id.out().strip().equals("0")) {
                return "root (this runs as uid " + id.out().strip() + ")";
            }
        } catch (IOException e) {
            return "the 'id' command (" + e.getMessage() + ")";
        }
        try {
            Result ip = exec(List.of("ip", "netns", "list"), Duration.ofSeconds(10));
            if (ip.code() != 0) {
                return "a working 'ip netns' (iproute2): " + ip.out().strip();
            }
        } catch (IOException e) {
            return "the 'ip' command of iproute2 (apt-get install iproute2)";
        }
        return null;
    }

    /** The words that run a command inside namespace {@code ns}; {@code ip netns exec} execs it (the pid stays the command's). */
    public static List<String> inside(String ns) {
        return List.of("ip", "netns", "exec", ns);
    }

    /** A switch: namespace {@code ns} with a bridge {@code br0} that is up. */
    public static void addSwitch(String ns) throws IOException {
        ip("netns", "add", ns);
        ip("-n", ns, "link", "add", "br0", "type", "bridge");
        ip("-n", ns, "link", "set", "br0", "up");
    }

    /**
     * A machine: namespace {@code ns} whose {@code eth0} (with {@code address}/24, up, and {@code lo} up) is
     * one end of a veth pair whose other end, {@code port}, is on the switch {@code switchNs}'s bridge.
     * The namespace exists once this is called, even when a later step fails: the caller deletes it.
     */
    public static void addNode(String switchNs, String ns, String port, String address) throws IOException {
        ip("netns", "add", ns);
        ip("link", "add", "eth0", "netns", ns, "type", "veth", "peer", "name", port, "netns", switchNs);
        ip("-n", switchNs, "link", "set", port, "master", "br0");
        ip("-n", switchNs, "link", "set", port, "up");
        ip("-n", ns, "addr", "add", address + "/24", "dev", "eth0");
        ip("-n", ns, "link", "set", "eth0", "up");
        ip("-n", ns, "link", "set", "lo", "up");
    }

    /** The names of every network namespace of this machine. */
    public static List<String> list() throws IOException {
        List<String> out = new ArrayList<>();
        for (String line : check(List.of("ip", "netns", "list")).split("\n")) {
            if (!line.isBlank()) {
                out.add(line.strip().split("\\s+")[0]);
            }
        }
        return out;
    }

    /** The pids of the processes in a namespace. */
    public static List<Long> pids(String ns) throws IOException {
        List<Long> out = new ArrayList<>();
        for (String line : exec(List.of("ip", "netns", "pids", ns), COMMAND_TIMEOUT).out().split("\n")) {
            if (line.strip().matches("\\d+")) {
                out.add(Long.parseLong(line.strip()));
            }
        }
        return out;
    }

    /** SIGKILL to every process in a namespace. */
    public static void killAll(String ns) throws IOException {
        for (long pid : pids(ns)) {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    /** Deletes a namespace; whether that worked ({@code ip netns del} fails while it is in use). */
    public static boolean delete(String ns) throws IOException {
        return exec(List.of("ip", "netns", "del", ns), COMMAND_TIMEOUT).code() == 0;
    }

    /**
     * Kills the processes of and deletes every namespace named {@code prefix<pid>-…} whose JVM (that pid)
     * is no longer alive; returns their names.
     */
    public static List<String> removeLeftovers(String prefix) throws IOException {
        Pattern name = Pattern.compile(Pattern.quote(prefix) + "(\\d+)-.*");
        List<String> removed = new ArrayList<>();
        for (String ns : list()) {
            Matcher m = name.matcher(ns);
            if (m.matches() && !ProcessHandle.of(Long.parseLong(m.group(1))).map(ProcessHandle::isAlive).orElse(false)) {
                killAll(ns);
                delete(ns);
                removed.add(ns);
            }
        }
        return removed;
    }

    /** {@code ip ARGS…}; an exception with its output when it fails. */
    public static void ip(String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("ip"));
        cmd.addAll(List.of(args));
        check(cmd);
    }

    /** Runs a command (bounded by {@link #COMMAND_TIMEOUT}) and returns its output; an exception with it when it fails. */
    public static String check(List<String> cmd) throws IOException {
        Result r = exec(cmd, COMMAND_TIMEOUT);
        if (r.code() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed (" + r.code() + "): " + r.out().strip());
        }
        return r.out();
    }

    /** Runs a command, waiting at most {@code timeout}; its stdin is closed, stdout and stderr merged. */
    public static Result exec(List<String> cmd, Duration timeout) throws IOException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .start();
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> {
            try {
                return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "";
            }
        });
        try {
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", cmd) + " did not end within " + timeout);
            }
            return new Result(p.exitValue(), out.get(5, TimeUnit.SECONDS));
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted: " + cmd, e);
        } catch (ExecutionException | TimeoutException e) {
            return new Result(p.exitValue(), "");
        }
    }
}
