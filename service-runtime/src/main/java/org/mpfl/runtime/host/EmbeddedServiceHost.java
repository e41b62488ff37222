package org.mpfl.runtime.host;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.mpfl.ir.cli.UsageException;
import org.mpfl.protocol.HostCredential;
import org.mpfl.protocol.launch.EmbeddedHost;

/**
 * A {@link ServiceHost} in the launcher's JVM ({@link EmbeddedHost}): started the way {@code mpflc host
 * --credential-stdin} starts one (loopback, binary channel, refusing to act until its credential
 * arrives), its credential handed over in memory instead of on standard input, then announced to the
 * engine by an {@link EngineAnnouncer} exactly like a host process.
 */
public final class EmbeddedServiceHost implements EmbeddedHost {
    private final ServiceHost host;
    private volatile EngineAnnouncer announcer;

    private EmbeddedServiceHost(ServiceHost host) {
        this.host = host;
    }

    /** The {@link EmbeddedHost.Factory} the engine finds with {@link java.util.ServiceLoader}. */
    public static final class Factory implements EmbeddedHost.Factory {
        @Override
        public EmbeddedHost start(String hostId, List<String> services) throws Exception {
            HostMain.quietLogging();
            ServiceHost host = ServiceHost.start(new ServiceHost.Options("127.0.0.1", 0, null, hostId, null, true, 0, null, true));
            try {
                for (String s : services) {
                    int eq = s.indexOf('=');
                    if (eq <= 0) {
                        throw new UsageException("--service wants NAME=CLASS, got " + s);
                    }
                    HostMain.publish(host, s.substring(0, eq), s.substring(eq + 1));
                }
            } catch (Exception e) {
                host.close();
                throw e;
            }
            return new EmbeddedServiceHost(host);
        }
    }

    @Override
    public String hostId() {
        return host.hostId();
    }

    @Override
    public void handOver(HostCredential credential) throws IOException {
        if (!credential.hostId().equals(host.hostId()) || credential.engineUrl() == null) {
            throw new IOException("the credential handed over is for host " + credential.hostId() + " of engine "
                    + credential.engineUrl() + ", this host is " + host.hostId() + " and needs its engine's URL");
        }
        HostCredential c = credential;
        host.setCredential(c);
        // the same capacity a host process announces (HostMain's default); the one host of 'run --local'
        // takes every rank of the run it is there for, however many cores the machine has
        EngineAnnouncer a = new EngineAnnouncer(host, c.engineUrl(), c, Runtime.getRuntime().availableProcessors(), true);
        host.onDeploy(a::reannounce);
        announcer = a;
        a.start();
    }

    @Override
    public void close(Duration bound) {
        EngineAnnouncer a = announcer;
        if (a != null) {
            a.close();
        }
        // as a host process's exit does: requests in flight end with the launcher, so Axis2's HTTP server need
        // not give the workers on idle keep-alive connections (the engine's) its 3 s before it closes them
        System.setProperty(HostMain.AXIS2_FAST_SHUTDOWN, "true");
        // Axis2's HTTP server says "[SimpleHTTPServer] Stop called" on System.out, which in a host process is
        // its own log, but here is the command's standard output (a run's outputs, or its one JSON object)
        PrintStream out = System.out;
        System.setOut(new WithoutAxis2StopLine(out));
        // (left in place when the close outlasts its bound: the server's stop still comes, and the JVM is ending)
        if (HostMain.closeWithin(host, bound.toMillis())) {
            System.setOut(out);
        }
    }

    /** Standard output without Axis2's stop line. */
    private static final class WithoutAxis2StopLine extends PrintStream {
        WithoutAxis2StopLine(PrintStream out) {
            super(out, true, StandardCharsets.UTF_8);
        }

        @Override
        public void println(String x) {
            if (x == null || !x.startsWith("[SimpleHTTPServer]")) {
                super.println(x);
            }
        }
    }
}
