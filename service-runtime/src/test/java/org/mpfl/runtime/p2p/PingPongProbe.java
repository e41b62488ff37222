package org.mpfl.runtime.p2p;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import org.mpfl.runtime.api.Communicator;

/**
 * A quick PingPong probe of the local and binary transports (two in-JVM hosts) against plain
 * sockets in the same JVM — for development; the benchmark proper is {@code mpflc bench p2p}.
 * Run: {@code java -cp <test classpath> org.mpfl.runtime.p2p.PingPongProbe [N...]}.
 */
public final class PingPongProbe {
    private PingPongProbe() {
    }

    public static void main(String[] args) throws Exception {
        int[] ns = args.length == 0 ? new int[] {1, 160, 500, 2000} : Arrays.stream(args).mapToInt(Integer::parseInt).toArray();
        try (InProcessCluster cluster = InProcessCluster.start(2, MessagingSettings.fromSystemProperties())) {
            for (int n : ns) {
                int iters = n >= 1000 ? 20 : n >= 300 ? 100 : 1000;
                double local = mpiws(cluster, new int[] {0, 0}, "local", n, iters);
                double binary = mpiws(cluster, new int[] {0, 1}, "binary", n, iters);
                double socket = socket(n, iters);
                System.out.printf("N=%4d bytes=%9d  local %9.1f us  binary %9.1f us  socket %9.1f us  binary/socket %.2f%n",
                        n, 8L * n * n, local, binary, socket, binary / socket);
            }
        }
    }

    private static double mpiws(InProcessCluster cluster, int[] hostOf, String mode, int n, int iters) {
        double[] medianUs = new double[1];
        cluster.run(hostOf, mode, Map.of(), ctx -> {
            Communicator w = ctx.world();
            double[] a = new double[n * n];
            long[] t = new long[iters];
            for (int i = 0; i < iters + iters / 5; i++) {
                long t0 = System.nanoTime();
                if (w.rank() == 0) {
                    w.send(a, 1, 0);
                    a = (double[]) w.recv(1, 0).value();
                } else {
                    a = (double[]) w.recv(0, 0).value();
                    w.send(a, 0, 0);
                }
                if (i >= iters / 5) {
                    t[i - iters / 5] = System.nanoTime() - t0;
                }
            }
            if (w.rank() == 0) {
                Arrays.sort(t);
                medianUs[0] = t[iters / 2] / 1000.0;
            }
        }).await(Duration.ofMinutes(5));
        return medianUs[0];
    }

    private static double socket(int n, int iters) throws Exception {
        try (ServerSocket ss = new ServerSocket(0)) {
            Thread echo = new Thread(() -> {
                try (Socket s = ss.accept()) {
                    s.setTcpNoDelay(true);
                    DataInputStream in = new DataInputStream(s.getInputStream());
                    DataOutputStream out = new DataOutputStream(s.getOutputStream());
                    byte[] buf = new byte[8 * n * n];
                    for (int i = 0; i < iters + iters / 5; i++) {
                        in.readFully(buf);
                        double[] a = new double[n * n];
                        ByteBuffer.wrap(buf).order(ByteOrder.LITTLE_ENDIAN).asDoubleBuffer().get(a);
                        ByteBuffer.wrap(buf).order(ByteOrder.LITTLE_ENDIAN).asDoubleBuffer().put(a);
                        out.write(buf);
                        out.flush();
                    }
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            echo.start();
            try (Socket s = new Socket("127.0.0.1", ss.getLocalPort())) {
                s.setTcpNoDelay(true);
                DataInputStream in = new DataInputStream(s.getInputStream());
                DataOutputStream out = new DataOutputStream(s.getOutputStream());
                double[] a = new double[n * n];
                byte[] buf = new byte[8 * n * n];
                long[] t = new long[iters];
                for (int i = 0; i < iters + iters / 5; i++) {
                    long t0 = System.nanoTime();
                    ByteBuffer.wrap(buf).order(ByteOrder.LITTLE_ENDIAN).asDoubleBuffer().put(a);
                    out.write(buf);
                    out.flush();
                    in.readFully(buf);
                    a = new double[n * n];
                    ByteBuffer.wrap(buf).order(ByteOrder.LITTLE_ENDIAN).asDoubleBuffer().get(a);
                    if (i >= iters / 5) {
                        t[i - iters / 5] = System.nanoTime() - t0;
                    }
                }
                echo.join(60_000);
                Arrays.sort(t);
                return t[iters / 2] / 1000.0;
            }
        }
    }
}
