package org.mpfl.engine.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ConnectException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.registry.HostAnnouncement;
import org.mpfl.engine.registry.HostRegistry;

class DeploymentServiceTest {
    @TempDir
    Path dir;

    @Test
    void aHostThatCannotBeReachedIsReportedWithAMessageEvenWhenTheExceptionHasNone() throws Exception {
        HostRegistry registry = new HostRegistry(Duration.ofSeconds(30));
        registry.announce(new HostAnnouncement("up", "http://127.0.0.1:9000/axis2/services", null, List.of(), 1, null));
        registry.announce(new HostAnnouncement("gone", "http://127.0.0.1:9002/axis2/services", null, List.of(), 1, null));
        DeploymentService deployments = new DeploymentService(dir, registry, (host, service, archive) -> {
            if (host.hostId().equals("gone")) {
                // what the JDK's HTTP client throws for a closed port: no message
                throw new ConnectException();
            }
        });
        Map<String, String> results = deployments.deploy("Svc", new byte[] {1, 2, 3});
        assertEquals("ok", results.get("up"));
        assertEquals("failed: java.net.ConnectException", results.get("gone"), results.toString());
        assertTrue(Files.isRegularFile(dir.resolve("Svc.aar")));
    }

    @Test
    void anArchiveGoesToAllHostsAtOnce() throws Exception {
        HostRegistry registry = new HostRegistry(Duration.ofSeconds(30));
        for (String id : List.of("a", "b", "c")) {
            registry.announce(new HostAnnouncement(id, "http://127.0.0.1:9000/" + id, null, List.of(), 1, null));
        }
        // each push waits until all three are under way: pushed one after the other, none would finish
        java.util.concurrent.CountDownLatch underWay = new java.util.concurrent.CountDownLatch(3);
        DeploymentService deployments = new DeploymentService(dir, registry, (host, service, archive) -> {
            underWay.countDown();
            if (!underWay.await(10, java.util.concurrent.TimeUnit.SECONDS)) {
                throw new java.io.IOException("pushed alone");
            }
        });
        Map<String, String> results = deployments.deploy("Svc", new byte[] {1, 2, 3});
        assertEquals(Map.of("a", "ok", "b", "ok", "c", "ok"), results);
        assertEquals(List.of("a", "b", "c"), List.copyOf(results.keySet()), "in the registry's order");
    }

    @Test
    void describeUsesTheFirstMessageAlongTheCauses() {
        assertEquals("refused", DeploymentService.describe(new java.io.IOException("refused")));
        assertEquals("java.io.IOException: connection reset",
                DeploymentService.describe(new java.io.IOException(null, new RuntimeException("connection reset"))));
    }
}
