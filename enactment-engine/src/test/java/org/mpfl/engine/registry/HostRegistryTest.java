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
        registry.onHostLost((h, how) -> lost.add(h.hostId()));
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

    @Test
    void quarantineDoublesOnRepeatOffencesUpToTheCapAndKeepsTheHostOutOfPlacement() {
        Duration first = Duration.ofSeconds(60);
        Duration cap = Duration.ofSeconds(200);
        registry.announce(host("a", "ring"));
        registry.announce(host("b", "ring"));
        Quarantine q = registry.quarantine("a", "deploy refused: HTTP 500", first, cap);
        assertEquals(1, q.offences());
        assertEquals(now.get() + 60_000, q.untilMs());
        assertTrue(registry.quarantined("a"));
        assertEquals(List.of("b"), registry.placeable().stream().map(HostInfo::hostId).toList());
        assertEquals(2, registry.hosts().size(), "a quarantined host stays registered (and visible)");

        // a second report while the quarantine lasts (another run saw the same fault) is not a new offence
        now.addAndGet(1_000);
        assertEquals(q, registry.quarantine("a", "run refused", first, cap));

        now.set(q.untilMs());
        assertFalse(registry.quarantined("a"), "it ends on time");
        assertEquals(2, registry.placeable().size());
        Quarantine second = registry.quarantine("a", "run refused", first, cap);
        assertEquals(2, second.offences());
        assertEquals(now.get() + 120_000, second.untilMs(), "doubled");
        assertEquals("run refused", second.reason());
        now.set(second.untilMs());
        assertEquals(now.get() + 200_000, registry.quarantine("a", "x", first, cap).untilMs(), "240 s capped at 200 s");
    }

    @Test
    void announcingAgainDoesNotLiftAQuarantineAndAcceptedWorkForgivesOnlyOnceItEnded() {
        Duration first = Duration.ofSeconds(10);
        registry.announce(host("a", "ring"));
        Quarantine q = registry.quarantine("a", "run refused", first, Duration.ofMinutes(5));
        registry.remove("a", HostRegistry.Departure.LEFT);
        registry.announce(host("a", "ring"));
        assertTrue(registry.quarantined("a"), "leave and announce again: still quarantined");
        registry.forgive("a");
        assertTrue(registry.quarantined("a"), "an active quarantine is not lifted by work accepted elsewhere");
        now.set(q.untilMs());
        registry.forgive("a");
        assertTrue(registry.quarantine("a").isEmpty(), "offences forgotten once it behaved");
        assertEquals(1, registry.quarantine("a", "again", first, Duration.ofMinutes(5)).offences());
    }

    /**
     * A new process under a known host id (the next Slurm job on a node whose last host was killed):
     * its announcement replaces the stale entry at once, the old process counts as lost, and its
     * quarantine does not outlive it. The same process announcing again changes none of that.
     */
    @Test
    void aNewInstanceReplacesTheStaleEntryAndEndsTheQuarantineOfTheOldProcess() {
        List<HostInfo> lost = new ArrayList<>();
        registry.onHostLost((h, how) -> lost.add(h));
        registry.announce(new HostAnnouncement("n1", "http://10.0.0.1:4000/axis2/services", null, List.of("ring"), 2, null,
                false, "first"));
        registry.quarantine("n1", "did not answer run", Duration.ofSeconds(60), Duration.ofMinutes(15));
        registry.announce(new HostAnnouncement("n1", "http://10.0.0.1:4000/axis2/services", null, List.of("ring"), 2, null,
                false, "first"));
        assertTrue(registry.quarantined("n1"), "the same process announcing again stays in quarantine");
        assertTrue(lost.isEmpty());

        HostInfo fresh = registry.announce(new HostAnnouncement("n1", "http://10.0.0.1:4100/axis2/services", null,
                List.of("ring"), 2, null, true, "second"));
        assertFalse(registry.quarantined("n1"), "the quarantine ended with the process it punished");
        assertTrue(registry.quarantine("n1").isEmpty());
        assertEquals(1, lost.size());
        assertEquals("http://10.0.0.1:4000/axis2/services", lost.get(0).soapUrl(), "the old process is the lost one");
        assertEquals(List.of(fresh), registry.hosts());
        assertEquals("second", registry.hosts().get(0).instance());
        assertTrue(fresh.oversubscribe());
    }

    static HostAnnouncement process(String instance, String soapUrl) {
        return new HostAnnouncement("n1", soapUrl, null, List.of("ring"), 2, null, false, instance);
    }

    /**
     * A second process with the host's credential while the first still heartbeats (two machines, one credential
     * file): it is kept waiting while the first may have stopped, refused for good once the first beats again, and the
     * first keeps its entry all along; the newcomer's own beats are not counted for the first's entry.
     */
    @Test
    void aSecondLiveProcessOfAHostIsRefusedAndTheFirstKeepsItsEntry() throws Exception {
        List<HostInfo> lost = new ArrayList<>();
        registry.onHostLost((h, how) -> lost.add(h));
        registry.announceUnlessLive(process("first", "http://10.0.0.1:4000/axis2/services"));
        now.addAndGet(1_000);
        HostRegistry.InstanceContest pending = assertThrows(HostRegistry.InstanceContest.class,
                () -> registry.announceUnlessLive(process("second", "http://10.0.0.2:4000/axis2/services")));
        assertTrue(pending.pending(), pending.getMessage());
        assertFalse(registry.heartbeat("n1", "second"), "the newcomer beats no entry of its own");
        now.addAndGet(1_000);
        assertTrue(registry.heartbeat("n1", "first"));
        now.addAndGet(1_000);
        HostRegistry.InstanceContest refused = assertThrows(HostRegistry.InstanceContest.class,
                () -> registry.announceUnlessLive(process("second", "http://10.0.0.2:4000/axis2/services")));
        assertFalse(refused.pending(), refused.getMessage());
        assertEquals("host 'n1' is already running at http://10.0.0.1:4000/axis2/services (another process with this credential,"
                + " still heartbeating): stop that one first, or give this one a credential of its own (mpflc host-token"
                + " --host-id NEW-ID -o FILE on the engine's machine)", refused.getMessage());
        assertEquals("first", registry.host("n1").orElseThrow().instance());
        // the refused process says goodbye as it stops: the live one's entry stays
        registry.leave("n1", "second");
        assertEquals("first", registry.host("n1").orElseThrow().instance());
        assertTrue(lost.isEmpty(), "the live process was not replaced: " + lost);
        registry.leave("n1", "first");
        assertTrue(registry.host("n1").isEmpty(), "its own goodbye takes it out");
    }

    /**
     * A restarted process (the old one killed, so without a goodbye) takes the entry once the old one has missed its
     * beats (half the 10 s timeout here), not after the whole timeout; and the old one, should it beat again after
     * all, is told to announce again (its entry is the new process's), where it is kept out while that one lives.
     */
    @Test
    void aRestartedProcessReplacesItsEntryOnceTheOldOneMissedItsBeats() throws Exception {
        registry.announceUnlessLive(process("first", "http://10.0.0.1:4000/axis2/services"));
        now.addAndGet(2_000);
        assertThrows(HostRegistry.InstanceContest.class,
                () -> registry.announceUnlessLive(process("second", "http://10.0.0.1:4100/axis2/services")));
        now.addAndGet(3_001);
        HostInfo fresh = registry.announceUnlessLive(process("second", "http://10.0.0.1:4100/axis2/services"));
        assertEquals("second", fresh.instance());
        assertFalse(registry.heartbeat("n1", "first"), "the old process's beat must not keep the new one's entry");
        assertTrue(registry.heartbeat("n1", "second"));
        assertTrue(registry.heartbeat("n1"), "a beat that names no process (an older host) counts as before");
        // a process that said goodbye leaves no entry: its successor is taken at once
        registry.remove("n1", HostRegistry.Departure.LEFT);
        assertEquals("third", registry.announceUnlessLive(process("third", "http://10.0.0.1:4200/axis2/services")).instance());
    }

    /** The punished process left (a Tomcat stopped to fix a wrong setting) and another came: the quarantine ends with it. */
    @Test
    void aNewInstanceAfterThePunishedOneLeftEndsTheQuarantine() {
        registry.announce(new HostAnnouncement("t7", "http://10.0.0.7:8081/axis2/services", null, List.of("ring"), 2, null,
                false, "before-the-fix"));
        registry.quarantine("t7", "deploy refused: connection refused at http://10.0.0.7:8081", Duration.ofSeconds(60),
                Duration.ofMinutes(15));
        registry.remove("t7", HostRegistry.Departure.LEFT);
        registry.announce(new HostAnnouncement("t7", "http://10.0.0.7:8080/axis2/services", null, List.of("ring"), 2, null,
                false, "after-the-fix"));
        assertFalse(registry.quarantined("t7"), "the quarantine ended with the process it punished");
        assertTrue(registry.quarantine("t7").isEmpty());
    }

    @Test
    void endedQuarantinesOfHostsThatLeftAreForgotten() {
        registry.announce(host("a", "ring"));
        Quarantine q = registry.quarantine("a", "run refused", Duration.ofSeconds(1), Duration.ofSeconds(1));
        registry.remove("a", HostRegistry.Departure.LEFT);
        registry.expire();
        assertTrue(registry.quarantine("a").isPresent(), "kept while active");
        now.set(q.untilMs());
        registry.expire();
        assertTrue(registry.quarantine("a").isEmpty());
    }
}
