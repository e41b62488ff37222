package org.mpfl.bench.collective;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintStream;
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
 * Runs {@link CollectivesBenchProgram} in two local service-host child processes (like two nodes):
 * for every transport and every p, one domain whose ranks are placed round-robin over the two
 * hosts, started with {@code run} and read back with {@code status}.
 */
public final class CollectivesBenchmark {
    /** The service type of the benchmark program in the hosts. */
    public static final String SERVICE = "mpfl.bench.Collectives";

    /** One measured case. */
    public record Result(String op, String algorithm, String transport, int p, int n, long bytes,
                         double medianUs, double minUs, double meanUs, int iterations) {
    }

    private final List<Integer> ranks;
    private final List<Integer> sizes;
    private final List<String> transports;
    private final Map<String, List<String>> cases;
    private final double scale;
    private final List<String> hostJvmArgs;
    private final PrintStream progress;
    private int quietWaitSeconds;

    /**
     * Before each domain, waits up to this long for the machine to be at least 85 % idle (as the
     * peers' scripts do: other jobs on the two cores distort everything); 0 = do not wait.
     */
    public CollectivesBenchmark quietWait(int seconds) {
        this.quietWaitSeconds = seconds;
        return this;
    }

    public CollectivesBenchmark(List<Integer> ranks, List<Integer> sizes, List<String> transports,
                                Map<String, List<String>> cases, double scale, List<String> hostJvmArgs,
                                PrintStream progress) {
        this.ranks = ranks;
        this.sizes = sizes;
        this.transports = transports;
        this.cases = cases;
        this.scale = scale;
        this.hostJvmArgs = hostJvmArgs;
        this.progress = progress;
    }

    public List<Result> run() throws Exception {
        List<Result> results = new ArrayList<>();
        progress.println("[bench] starting 2 service hosts");
        HostProcesses.Builder b = HostProcesses.builder().count(2).service(SERVICE, CollectivesBenchProgram.class);
        hostJvmArgs.forEach(b::jvmArg);
        try (HostProcesses hosts = b.start(); MpiwsClient client = new MpiwsClient(Duration.ofSeconds(60))) {
            for (String transport : transports) {
                for (int p : ranks) {
                    results.addAll(runDomain(client, hosts, transport, p));
                }
            }
        }
        return results;
    }

    private void waitForQuiet() throws InterruptedException {
        if (quietWaitSeconds <= 0) {
            return;
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(quietWaitSeconds);
        double idle = 0;
        while (System.nanoTime() < deadline) {
            idle = idleFraction();
            if (idle >= 0.85 || Double.isNaN(idle)) {
                return;
            }
        }
        progress.printf("[bench] machine still busy after %d s (%.0f %% idle); measuring anyway%n", quietWaitSeconds, 100 * idle);
    }

    /** The 1/5/15-minute load averages (other jobs on the machine distort the numbers), or "?" */
    static String loadAverage() {
        try {
            String[] f = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).trim().split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (java.io.IOException | RuntimeException e) {
            return "?";
        }
    }

    /** Idle share of all CPUs over one second, from /proc/stat ({@code NaN} where there is none). */
    private static double idleFraction() throws InterruptedException {
        long[] a = cpuTimes();
        Thread.sleep(1000);
        long[] b = cpuTimes();
        if (a == null || b == null || b[0] == a[0]) {
            return Double.NaN;
        }
        return (double) (b[1] - a[1]) / (b[0] - a[0]);
    }

    private static long[] cpuTimes() {
        try {
            String line = java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/stat")).get(0);
            String[] f = line.trim().split("\\s+");
            long total = 0;
            for (int i = 1; i < f.length; i++) {
                total += Long.parseLong(f[i]);
            }
            long idle = Long.parseLong(f[4]) + (f.length > 5 ? Long.parseLong(f[5]) : 0);
            return new long[] {total, idle};
        } catch (java.io.IOException | RuntimeException e) {
            return null;
        }
    }

    private String casesParam() {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, List<String>> e : cases.entrySet()) {
            if (sb.length() > 0) {
                sb.append(';');
            }
            sb.append(e.getKey()).append(':').append(String.join(",", e.getValue()));
        }
        return sb.toString();
    }

    private List<Result> runDomain(MpiwsClient client, HostProcesses hosts, String transport, int p) throws Exception {
        List<Endpoint> eps = new ArrayList<>();
        for (int r = 0; r < p; r++) {
            HostProcess h = hosts.get(r % 2);
            eps.add(h.endpoint(SERVICE));
        }
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("cases", casesParam());
        params.put("sizes", String.join(",", sizes.stream().map(String::valueOf).toList()));
        params.put("scale", scale);
        String domain = DomainToken.generate();
        String token = DomainToken.generate();
        List<RunRequest.ProcessSlice> procs = List.of(new RunRequest.ProcessSlice("bench", SERVICE, p));
        waitForQuiet();
        progress.printf("[bench] transport %s, p=%d: running (load average %s)%n", transport, p, loadAverage());
        for (int r = p - 1; r >= 0; r--) {
            client.run(eps.get(r).soapUrl(), new RunRequest(domain, r, eps, procs, params, token, null, transport));
        }
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(20);
        RankStatus[] st = new RankStatus[p];
        double lastShown = -1;
        while (true) {
            boolean allFinal = true;
            boolean anyFailed = false;
            for (int r = 0; r < p; r++) {
                st[r] = client.status(eps.get(r).soapUrl(), domain, r, new DomainToken(token).proveStatus(domain, r));
                allFinal &= st[r].isFinal();
                anyFailed |= st[r].state().equals("failed");
            }
            if (allFinal || anyFailed) {
                break;
            }
            if (System.nanoTime() > deadline) {
                client.abort(eps.get(0).soapUrl(), domain, new DomainToken(token).proveAbort(domain));
                throw new IllegalStateException("benchmark domain (" + transport + ", p=" + p + ") did not end within 20 min");
            }
            double done = st[0].progressValue();
            if (!Double.isNaN(done) && done != lastShown) {
                progress.printf("[bench] transport %s, p=%d: %.0f/%.0f cases%n", transport, p, done, st[0].progressTotal());
                lastShown = done;
            }
            Thread.sleep(200);
        }
        for (int r = 0; r < p; r++) {
            if (!"done".equals(st[r].state())) {
                if (!st[r].isFinal()) {
                    client.abort(eps.get(0).soapUrl(), domain, new DomainToken(token).proveAbort(domain));
                }
                throw new IllegalStateException("benchmark rank " + r + " (" + transport + ", p=" + p + ") ended "
                        + st[r].state() + (st[r].failure() == null ? "" : ": " + st[r].failure()));
            }
        }
        List<Result> out = new ArrayList<>();
        ObjectMapper json = new ObjectMapper();
        for (Map.Entry<String, String> e : st[0].outputsJson().entrySet()) {
            String[] key = e.getKey().split("\\|");
            if (key.length != 3) {
                continue;
            }
            double[] v = json.readValue(e.getValue(), double[].class);
            int n = Integer.parseInt(key[2]);
            Result res = new Result(key[0], key[1], transport, p, n, 8L * n * n, v[0], v[1], v[2], (int) v[3]);
            progress.printf("[bench] %-9s %-24s %-6s p=%d N=%-4d %10.1f us%n", res.op(), res.algorithm(), transport, p, n,
                    res.medianUs());
            out.add(res);
        }
        return out;
    }
}
