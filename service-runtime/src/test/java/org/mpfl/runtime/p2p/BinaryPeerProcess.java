package org.mpfl.runtime.p2p;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.mpfl.protocol.Endpoint;
import org.mpfl.runtime.transport.ObjectTypes;

/**
 * A child JVM hosting ranks with only the binary channel (started by {@link TwoProcessFixture}).
 * Line protocol on stdin/stdout:
 * <pre>
 * out: READY hostId binaryAddress
 * in:  RUN domainId token mode scenario endpoints params ranks
 *        endpoints: hostId@binaryAddress per world rank, comma-separated; params: k=v;k=v or -;
 *        ranks: the world ranks to run here, comma-separated
 * out: RESULT domainId rank b64(outputs as k=v lines) b64(failure or empty)
 * in:  EXIT   (or end of input: the parent is gone)
 * </pre>
 */
public final class BinaryPeerProcess {
    private BinaryPeerProcess() {
    }

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        String hostId = "child-" + ProcessHandle.current().pid();
        MessagingHost host = MessagingHost.start(hostId, "127.0.0.1", 0, "127.0.0.1",
                MessagingSettings.fromSystemProperties(), null);
        out.println("READY " + hostId + " " + host.binaryAddress());
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try {
            for (String line = in.readLine(); line != null && !line.equals("EXIT"); line = in.readLine()) {
                String[] f = line.split(" ");
                if (f[0].equals("RUN")) {
                    run(host, f, out);
                }
            }
        } finally {
            host.close();
            System.exit(0);
        }
    }

    private static void run(MessagingHost host, String[] f, PrintStream out) {
        String domainId = f[1];
        String token = f[2];
        String mode = f[3];
        String scenario = f[4];
        List<Endpoint> endpoints = new ArrayList<>();
        for (String e : f[5].split(",")) {
            int at = e.indexOf('@');
            endpoints.add(new Endpoint("peer://" + e, e.substring(at + 1), e.substring(0, at)));
        }
        Map<String, Object> params = new HashMap<>();
        if (!f[6].equals("-")) {
            for (String kv : f[6].split(";")) {
                int eq = kv.indexOf('=');
                params.put(kv.substring(0, eq), kv.substring(eq + 1));
            }
        }
        for (String r : f[7].split(",")) {
            int rank = Integer.parseInt(r);
            RankInstance instance = host.registry().open(domainId, rank, token, endpoints, host.selector(), mode);
            instance.allowObjectTypes(ObjectTypes.forProgram(P2PScenarios.named(scenario))); // as the service host does
            Thread t = new Thread(() -> runRank(host, instance, params, scenario, out), "child-rank-" + rank);
            t.setDaemon(true);
            t.start();
        }
    }

    private static void runRank(MessagingHost host, RankInstance instance, Map<String, Object> params, String scenario,
                                PrintStream out) {
        InProcessRankContext ctx = new InProcessRankContext(instance, params);
        String failure = "";
        try {
            P2PScenarios.named(scenario).run(ctx);
            instance.finish();
        } catch (Throwable t) {
            failure = t.getClass().getSimpleName() + ": " + t.getMessage();
            instance.close();
            host.registry().abortLocally(instance.domainId(), "rank " + instance.rank() + " failed: " + t);
        }
        StringBuilder outputs = new StringBuilder();
        ctx.outputs().forEach((k, v) -> outputs.append(k).append('=').append(v).append('\n'));
        Base64.Encoder b64 = Base64.getEncoder();
        synchronized (out) {
            out.println("RESULT " + instance.domainId() + " " + instance.rank() + " "
                    + b64.encodeToString(outputs.toString().getBytes(StandardCharsets.UTF_8)) + " "
                    + b64.encodeToString(failure.getBytes(StandardCharsets.UTF_8)) + " .");
        }
    }
}
