package org.mpfl.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.Endpoint;
import org.mpfl.protocol.MpiwsClient;
import org.mpfl.protocol.RankStatus;
import org.mpfl.protocol.RunRequest;
import org.mpfl.protocol.launch.HostProcess;
import org.mpfl.protocol.launch.HostProcesses;

/**
 * {@code mpflc bench p2p}: starts two local service hosts and a socket echo server (child
 * processes), and for every N measures PingPong and Ping*Pong over plain sockets and over MPIWS
 * per transport — {@code soap} and {@code binary} with one rank in each host, {@code local} with
 * both ranks in the first host — each MPIWS measurement being one two-rank domain started with
 * {@code run} and read back with {@code status}. Iterations as the peers' benchmark: enough to move
 * about 150 MB per size, clamped (PingPong [10,1000], Ping*Pong [5,300]) times the scale; warm-up
 * untimed.
 */
public final class P2pBenchmark {
    /** The service type of the benchmark program in the hosts. */
    public static final String SERVICE = "mpfl.bench.PingPong";

    /** One PingPong result. */
    public record PingPong(String transport, int n, long bytes, double mpiwsUs, double socketUs) {
    }

    /** One Ping*Pong result (per message = total / 11). */
    public record PingStarPong(String transport, int n, long bytes, double mpiwsUsPerMsg, double socketUsPerMsg) {
    }

    /** Everything measured. */
    public record Results(List<PingPong> pingpong, List<PingStarPong> pingstarpong) {
    }

    private final List<Integer> sizes;
    private final List<String> transports;
    private final double scale;
    private final List<String> hostJvmArgs;
    private final PrintStream progress;
    private int quietWaitSeconds;

    public P2pBenchmark(List<Integer> sizes, List<String> transports, double scale, List<String> hostJvmArgs,
                        PrintStream progress) {
        this.sizes = sizes;
        this.transports = transports;
        this.scale = scale;
        this.hostJvmArgs = hostJvmArgs;
        this.progress = progress;
    }

    /** Before each size, wait up to this long for the machine to be at least 85 % idle (0: do not wait). */
    public P2pBenchmark quietWait(int seconds) {
        this.quietWaitSeconds = seconds;
        return this;
    }

    static int iters(double budgetBytes, double bytesPerIter, int lo, int hi, double scale) {
        int n = (int) Math.round(budgetBytes / Math.max(1.0, bytesPerIter));
        n = Math.max(lo, Math.min(hi, n));
        return Math.max(3, (int) Math.round(n * scale));
    }

    public Results run() throws Exception {
        List<PingPong> pp = new ArrayList<>();
        List<PingStarPong> psp = new ArrayList<>();
        progress.println("[bench] starting 2 service hosts and the socket echo server");
        HostProcesses.Builder b = HostProcesses.builder().count(2).service(SERVICE, PingPongProgram.class);
        hostJvmArgs.forEach(b::jvmArg);
        Process echo = startEcho();
        try (HostProcesses hosts = b.start(); MpiwsClient client = new MpiwsClient(Duration.ofSeconds(60))) {
            int echoPort = readEchoPort(echo);
            try (SocketReference.Client sock = new SocketReference.Client("127.0.0.1", echoPort)) {
                warmUp(client, hosts, sock);
                for (int n : sizes) {
                    MachineLoad.awaitQuiet(quietWaitSeconds, 0.85, progress);
                    long bytes = 8L * n * n;
                    int it = iters(1.5e8, 2.0 * bytes, 10, 1000, scale);
                    int warm = Math.max(3, it / 5);
                    int kit = iters(1.5e8, (PingPongProgram.K + 1.0) * bytes, 5, 300, scale);
                    int kwarm = Math.max(2, kit / 5);
                    double sockPp = sock.pingPong(n, it, warm);
                    double sockPsp = sock.pingStarPong(n, kit, kwarm) / (PingPongProgram.K + 1);
                    progress.printf("[bench] N=%d socket: pingpong %.1f us, ping*pong %.1f us/msg%n", n, sockPp, sockPsp);
                    for (String t : transports) {
                        Map<String, Object> params = new LinkedHashMap<>();
                        params.put("n", n);
                        params.put("iters", it);
                        params.put("warmup", warm);
                        params.put("kiters", kit);
                        params.put("kwarmup", kwarm);
                        RankStatus s = runPair(client, hosts, t, params);
                        double ppUs = Double.NaN;
                        double pspUs = Double.NaN;
                        if (s != null && "done".equals(s.state())) {
                            ppUs = Double.parseDouble(s.outputsJson().get("pingpong_us"));
                            pspUs = Double.parseDouble(s.outputsJson().get("pingstarpong_us")) / (PingPongProgram.K + 1);
                            if (Double.parseDouble(s.outputsJson().get("pingpong_check")) != 1.0
                                    || Double.parseDouble(s.outputsJson().get("pingstarpong_check")) != 2.0) {
                                throw new IllegalStateException("wrong payload came back over " + t + " at N=" + n);
                            }
                        }
                        progress.printf("[bench] N=%d %s: pingpong %.1f us, ping*pong %.1f us/msg%n", n, t, ppUs, pspUs);
                        pp.add(new PingPong(t, n, bytes, ppUs, sockPp));
                        psp.add(new PingStarPong(t, n, bytes, pspUs, sockPsp));
                    }
                }
            }
        } finally {
            echo.destroy();
            if (!echo.waitFor(5, TimeUnit.SECONDS)) {
                echo.destroyForcibly();
            }
        }
        return new Results(pp, psp);
    }

    /**
     * Untimed warm-up of every path (JIT compilation of the HTTP, SOAP and messaging code): a short
     * run per transport with small and medium messages, and the same over the socket reference.
     */
    private void warmUp(MpiwsClient client, HostProcesses hosts, SocketReference.Client sock) throws Exception {
        progress.println("[bench] warming up (untimed)");
        for (int n : new int[] {1, 100}) {
            sock.pingPong(n, 2000, 0);
            sock.pingStarPong(n, 200, 0);
            for (String t : transports) {
                Map<String, Object> params = new LinkedHashMap<>();
                params.put("n", n);
                params.put("iters", n == 1 ? 3000 : 500);
                params.put("warmup", 0);
                params.put("kiters", n == 1 ? 300 : 50);
                params.put("kwarmup", 0);
                runPair(client, hosts, t, params);
            }
        }
    }

    /** Runs one two-rank domain of the benchmark program; returns rank 0's final status (null on failure). */
    private RankStatus runPair(MpiwsClient client, HostProcesses hosts, String transport, Map<String, Object> params)
            throws Exception {
        HostProcess a = hosts.get(0);
        HostProcess bHost = transport.equals("local") ? a : hosts.get(1);
        List<Endpoint> eps = List.of(a.endpoint(SERVICE), bHost.endpoint(SERVICE));
        String domain = DomainToken.generate();
        String token = DomainToken.generate();
        List<RunRequest.ProcessSlice> procs = List.of(new RunRequest.ProcessSlice("bench", SERVICE, 2));
        for (int r = 1; r >= 0; r--) {
            client.run(eps.get(r).soapUrl(), new RunRequest(domain, r, eps, procs, params, token, null, transport));
        }
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
        RankStatus s0 = null;
        RankStatus s1 = null;
        while (System.nanoTime() < deadline) {
            s0 = client.status(eps.get(0).soapUrl(), domain, 0, new DomainToken(token).proveStatus(domain, 0));
            s1 = client.status(eps.get(1).soapUrl(), domain, 1, new DomainToken(token).proveStatus(domain, 1));
            if (s0.isFinal() && s1.isFinal()) {
                break;
            }
            Thread.sleep(100);
        }
        if (s0 == null || !"done".equals(s0.state()) || !"done".equals(s1.state())) {
            progress.println("[bench] " + transport + " run failed: rank 0 " + describe(s0) + ", rank 1 " + describe(s1));
            if (s0 != null && !s0.isFinal()) {
                client.abort(eps.get(0).soapUrl(), domain, new DomainToken(token).proveAbort(domain));
            }
            return null;
        }
        return s0;
    }

    private static String describe(RankStatus s) {
        return s == null ? "no status" : s.state() + (s.failure() == null ? "" : " (" + s.failure() + ")");
    }

    private static Process startEcho() throws IOException {
        List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), SocketReference.class.getName(), "127.0.0.1");
        return new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    }

    /** The echo server's port from its ready line, waiting at most 60 s. */
    private static int readEchoPort(Process echo) throws Exception {
        java.util.concurrent.CompletableFuture<String> first = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return new BufferedReader(new InputStreamReader(echo.getInputStream(), StandardCharsets.UTF_8)).readLine();
            } catch (IOException e) {
                return null;
            }
        });
        String line;
        try {
            line = first.get(60, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IOException("socket echo server not ready within 60 s");
        }
        if (line == null || !line.startsWith(SocketReference.READY)) {
            throw new IOException("socket echo server did not start: " + line);
        }
        return Integer.parseInt(line.substring(SocketReference.READY.length()).trim());
    }
}
