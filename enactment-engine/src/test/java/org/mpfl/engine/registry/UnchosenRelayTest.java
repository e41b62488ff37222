package org.mpfl.engine.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.HostCalls;
import org.mpfl.engine.run.FakeRanks;
import org.mpfl.protocol.HostCredential;
import org.mpfl.protocol.relay.RelayIdentity;
import org.mpfl.protocol.relay.RelayWire;

/**
 * A host registers only at the relay it announced to the engine, and only with a registration's proof ({@link RelayLab}:
 * a real engine, {@code mpflc relay} r1 against it). The attack: host a is reached through a relay of its own site (it
 * announced {@code 127.0.0.1:9}); a host proves itself to every relay it dials, on a plain connection, and to whatever
 * greets it at the relay address a peer announced — so an attacker holding some other host's credential announces
 * that host with a listener of its own as relay, gets placed in a run with a, passes r1's greeting on to a and a's
 * proof back ({@code RogueRelayTest} does this to the engine) and registers a's addresses at r1 with it. r1's directory
 * would then list them, and the hosts behind r1 (which route an address of another site through their own relay when
 * its directory lists it) would dial a there — into the attacker's control connection. Two checks refuse it: the proof
 * names its request, so a dial's registers nobody; and the engine takes a registration only at the relay the host
 * announced (a registration's proof, passed on from a plain link by an attacker on its path, is refused: a never chose
 * r1). A dial by a through r1, which any host of a domain makes at the relay of the host it reaches, still works.
 */
@Timeout(120)
class UnchosenRelayTest {
    @TempDir
    Path dir;

    @Test
    void aHostsProofRegistersItOnlyAtTheRelayItAnnounced() throws Exception {
        try (Engine engine = Engine.start(new EngineConfig().port(0).heartbeatTimeout(HostCalls.SILENT_HOSTS_TIMEOUT).dataDir(dir)
                .invoker(new FakeRanks(r -> { })));
             RelayLab lab = new RelayLab(engine, dir)) {
            String aAddress = lab.announce("a", 4101, "127.0.0.1:9");
            String bAddress = lab.announce("b", 4201);
            HostCredential a = HostCalls.credential(engine, "a");
            HostCredential b = HostCalls.credential(engine, "b");
            try (RelayLab.Host bControl = lab.register(b, bAddress)) {
                assertEquals("registered", bControl.answer.get("ok"), "b announced r1: " + bControl.answer);

                RelayIdentity victim = RelayIdentity.ofHost("a", a.engineKey());
                // the proof a gives any listener that greets as r1 when it dials: a dial's, which registers nobody
                Map<String, String> withDialProof = registerAs(lab, aAddress, (relayId, nonce) -> victim.proof("dial",
                        "127.0.0.1:4999", relayId, nonce));
                assertTrue(withDialProof.getOrDefault("error", "").startsWith("not authenticated"), withDialProof.toString());
                // a registration's proof, as a's link gives whatever greets at its relay's address (an attacker on the
                // path of a plain link passes r1's greeting on): the engine refuses it, a never chose r1
                Map<String, String> withRegisterProof = registerAs(lab, aAddress, (relayId, nonce) -> victim.proof("register",
                        "127.0.0.1:9", relayId, nonce));
                assertEquals("host a may not register at relay r1 at " + lab.address() + ": it announced its relay to the"
                        + " engine as 127.0.0.1:9 (a host registers only at the relay it announced; its --relay must be the"
                        + " address the relay announces)", withRegisterProof.get("error"), withRegisterProof.toString());

                // so nothing at r1 answers for a's address: b's dial for it finds no host
                try (RelayLab.Host dial = lab.dial(b, aAddress)) {
                    Map<String, String> answer = RelayWire.read(dial.in);
                    assertEquals("no host holding a connection to relay r1 serves " + aAddress, answer.get("error"), answer.toString());
                }
                // while a, which did not announce r1, still dials b through it: b hears of the dial
                try (RelayLab.Host dial = lab.dial(a, bAddress)) {
                    Map<String, String> incoming = bControl.next("incoming");
                    assertEquals("a", incoming.get("from"), incoming.toString());
                    assertEquals(bAddress, incoming.get("target"), incoming.toString());
                }
                assertTrue(bControl.answersPing(), "b's registration is untouched");
            }
        }
    }

    /** The attacker's registration of a's address at r1 as host a, with {@code proof} (relay id, nonce → proof); the answer. */
    private static Map<String, String> registerAs(RelayLab lab, String address,
                                                  java.util.function.BinaryOperator<String> proof) throws Exception {
        try (RelayLab.Host attacker = new RelayLab.Host(new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), lab.port))) {
            Map<String, String> greeting = RelayWire.read(attacker.in);
            Map<String, String> register = new LinkedHashMap<>();
            register.put("op", "register");
            register.put("host", "a");
            register.put("proof", proof.apply(greeting.get("relay"), greeting.get("nonce")));
            register.put("site", "s2");
            register.put("addresses", address);
            RelayWire.write(attacker.out, register);
            Map<String, String> answer = RelayWire.read(attacker.in);
            attacker.awaitClosed();
            return answer;
        }
    }
}
