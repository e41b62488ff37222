package org.mpfl.engine.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HostRegistryTest {
    final AtomicLong now = new AtomicLong(1_000);
    final HostRegistry registry = new HostRegistry(Duration.ofSeconds(10), now::get);

    static HostAnnouncement host(String id, String... services) {
        return new HostAnnouncement(id, "http://127.0.0.1:9000/axis2/services", "127.0.0.1:9001", List.of(services), 4, null);
    }

    @Test
    void announceAddsAHostAndHeartbeatsKeepItAlive() {
        HostInfo h = registry.announce(host("a", "ring"));
        assertEquals("http://127.0.0.1:9000/axis2/services/ring", h.serviceUrl("ring"));
        assertEquals("http://127.0.0.1:9000/axis2/services/mpfl-deploy", h.deployUrl());
        assertTrue(h.offers("ring"));
        assertFalse(h.offers("halo"));
        now.addAndGet(8_000);
        assertTrue(registry.heartbeat("a"));
        now.addAndGet(8_000);
        assertTrue(registry.expire().isEmpty(), "heartbeat 8 s ago is within the 10 s timeout");
        assertEquals(1, registry.hosts().size());
    }

    @Test
    void hostsWithoutHeartbeatLeaveAndListenersHear() {
        List<String> lost = new ArrayList<>();
        registry.onHostLost(h -> lost.add(h.hostId()));
        registry.announce(host("a", "ring"));
        registry.announce(host("b", "ring"));
        now.addAndGet(6_000);
        registry.heartbeat("b");
        now.addAndGet(6_000);
        assertEquals(List.of("a"), registry.expire().stream().map(HostInfo::hostId).toList());
        assertEquals(List.of("a"), lost);
        assertEquals(List.of("b"), registry.hosts().stream().map(HostInfo::hostId).toList());
        assertFalse(registry.heartbeat("a"), "an expired host must announce again");
    }

    @Test
    void announcementWithoutUrlIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> registry.announce(new HostAnnouncement("x", null, null, null, null, null)));
    }

    @Test
    void hostFileEntriesNeverExpire(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("hosts");
        Files.writeString(file, """
                # two nodes
                http://node1:8081/axis2/services  services=ring,halo capacity=4
                http://node2:8081/axis2/services   # offers everything, capacity 1

                http://node3:8081/axis2/services id=n3 binary=node3:9000 slots=2
                """);
        registry.addStatic(HostFile.read(file));
        now.addAndGet(3_600_000);
        assertTrue(registry.expire().isEmpty());
        List<HostInfo> hosts = registry.hosts();
        assertEquals(3, hosts.size());
        HostInfo n1 = registry.host("http://node1:8081/axis2/services").orElseThrow();
        assertEquals(4, n1.capacity());
        assertTrue(n1.offers("halo"));
        assertFalse(n1.offers("moldyn"));
        HostInfo n2 = registry.host("http://node2:8081/axis2/services").orElseThrow();
        assertTrue(n2.offers("anything"));
        assertEquals(1, n2.capacity());
        HostInfo n3 = registry.host("n3").orElseThrow();
        assertEquals("node3:9000", n3.binaryAddress());
        assertEquals(2, n3.capacity());
    }

    @Test
    void hostFileErrorsNameFileAndLine(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("hosts");
        Files.writeString(file, "http://ok:1/s\nhttp://bad:1/s capacity=zero\n");
        IOException e = assertThrows(IOException.class, () -> HostFile.read(file));
        assertTrue(e.getMessage().contains("hosts:2"), e.getMessage());
        Files.writeString(file, "not a url\n");
        assertThrows(IOException.class, () -> HostFile.read(file));
        Files.writeString(file, "http://a:1/s colour=blue\n");
        assertTrue(assertThrows(IOException.class, () -> HostFile.read(file)).getMessage().contains("unknown key 'colour'"));
    }
}
