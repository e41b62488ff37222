package org.mpfl.runtime.host;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.mpfl.protocol.launch.HostProcesses;
import org.mpfl.testing.StartsProcesses;

/**
 * A host asked to end (SIGTERM, as {@code mpflc run --local} ends its hosts) exits promptly although a
 * client still holds an idle keep-alive HTTP connection to it: the exit does not wait for Axis2's
 * worker on that connection (it did, ~3 s, after every local run).
 */
@StartsProcesses
class HostExitTest {
    @Test
    void aHostEndsPromptlyWithAnIdleKeepAliveConnectionOpen() throws Exception {
        try (HostProcesses hosts = HostProcesses.builder().count(1).jvmArg("-Xmx256m").start();
             Socket idle = new Socket()) {
            URI u = URI.create(hosts.get(0).baseUrl());
            idle.connect(new InetSocketAddress(u.getHost(), u.getPort()), 5000);
            idle.setSoTimeout(10_000);
            OutputStream out = idle.getOutputStream();
            out.write(("GET /axis2/services/Nothing?wsdl HTTP/1.1\r\nHost: " + u.getHost() + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = idle.getInputStream();
            assertTrue(in.read() >= 0, "the host answered on the connection, which it now keeps alive");
            Process p = hosts.get(0).process();
            long t0 = System.nanoTime();
            p.destroy();
            boolean ended = p.waitFor(2500, TimeUnit.MILLISECONDS);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(ended, "the host had not ended " + ms + " ms after it was asked to");
        }
    }
}
