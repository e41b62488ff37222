package org.mpfl.runtime.transport.binary;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.protocol.Endpoint;
import org.mpfl.runtime.transport.DomainTransports;
import org.mpfl.testing.LabPki;
import org.mpfl.testing.StartsProcesses;

/**
 * The set-up probe over TLS (the dialled path): a peer that takes the connection at once but whose TLS
 * handshake starts only after the connection bound — as in a suite on a loaded 2-core machine, where a
 * probe's handshake once took more than the whole 1 s the probe used to have — still gets the binary
 * channel, because the handshake and HELLO have their own bound after the connection. Processes: the
 * lab CA is made with keytool.
 */
@Timeout(120)
@StartsProcesses
class ProbeAnswerTlsTest {
    @TempDir
    Path dir;

    @Test
    void aTlsHandshakeLaterThanTheConnectionBoundIsStillAnAnswer() throws Exception {
        LabPki.Machine machine = LabPki.create(dir.resolve("lab"), "lab").issue("machine-a", "127.0.0.1");
        ReachabilityProbe probe = new ReachabilityProbe(machine.settings());
        // a first handshake loads this JVM's TLS classes at both ends: not the delay this test is about
        try (HelloServer prompt = new HelloServer(0, machine.settings())) {
            Endpoint warm = new Endpoint("stub://prompt/0", prompt.address(), "prompt");
            assertEquals(Set.of(warm), probe.reachable(List.of(warm), DomainTransports.PROBE_TIMEOUT_MS + 60_000));
        }
        try (HelloServer late = new HelloServer(ProbeAnswerTest.LATE_MS, machine.settings())) {
            Endpoint peer = new Endpoint("stub://late/0", late.address(), "late");
            long t0 = System.nanoTime();
            Set<Endpoint> answered = probe.reachable(List.of(peer), DomainTransports.PROBE_TIMEOUT_MS);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertEquals(Set.of(peer), answered, "the TLS peer answered " + ProbeAnswerTest.LATE_MS + " ms after connecting");
            assertTrue(ms >= ProbeAnswerTest.LATE_MS, "the probe waited for the late handshake (" + ms + " ms)");
        }
    }
}
