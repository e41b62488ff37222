package org.mpfl.engine.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.testing.LabPki;
import org.mpfl.testing.MpflcCall;

/**
 * {@code mpflc up} with a certificate that does not name the address hosts reach the engine at (its {@code --public-url},
 * else its {@code --bind}) is refused at its start, as {@code mpflc host} refuses an {@code --advertise} its certificate
 * does not name. Found by the deployment walkthrough: such an engine started and printed its banner, and every host
 * then failed its TLS handshake, which the admin saw only in each host's log.
 */
@Timeout(120) // without the check the engine starts and serves until interrupted
class UpCertificateNamesTest {
    @TempDir
    static Path dir;

    static LabPki.Machine loopbackOnly;

    /** As docs/deployment.md's recipe issues it on a machine whose address is 127.0.0.1: {@code IP:$ip,IP:127.0.0.1}. */
    static LabPki.Machine recipeOnLoopback;

    @BeforeAll
    static void pki() throws Exception {
        LabPki lab = LabPki.create(dir.resolve("pki"), "lab");
        loopbackOnly = lab.issue("engine", "127.0.0.1");
        recipeOnLoopback = lab.issue("loopback-machine", "127.0.0.1", "127.0.0.1");
    }

    /** A certificate that names an address twice has it said once: the refusal read "names 127.0.0.1, 127.0.0.1". */
    @Test
    void aNameTheCertificateGivesTwiceIsSaidOnce() throws Exception {
        assertEquals(java.util.Optional.of("its certificate names 127.0.0.1, not 127.0.0.5: peers reaching it at 127.0.0.5 would"
                + " refuse the TLS handshake"), recipeOnLoopback.settings().unnamedAddress("127.0.0.5"));
    }

    @Test
    void aBindAddressTheCertificateDoesNotNameIsRefused() {
        String said = refused("--bind", "127.0.0.5");
        assertTrue(said.contains("mpflc up: the engine is reached at 127.0.0.5 (--bind), but its certificate names 127.0.0.1,"
                + " not 127.0.0.5: peers reaching it at 127.0.0.5 would refuse the TLS handshake"), said);
        assertFalse(said.contains("\tat "), "no stack trace: " + said);
    }

    @Test
    void aPublicUrlTheCertificateDoesNotNameIsRefused() {
        String said = refused("--bind", "0.0.0.0", "--public-url", "https://127.0.0.6:8443");
        assertTrue(said.contains("the engine is reached at 127.0.0.6 (--public-url), but its certificate names 127.0.0.1"), said);
    }

    /** {@code mpflc up --hosts 0} with the loopback-only certificate and {@code more}: must exit 2 before it starts. */
    private static String refused(String... more) {
        List<String> args = new ArrayList<>(List.of("up", "--hosts", "0", "--port", "0", "--data",
                dir.resolve("data-" + more.length).toString()));
        args.addAll(List.of(more));
        args.addAll(loopbackOnly.pemArguments());
        MpflcCall up = MpflcCall.run(args.toArray(String[]::new));
        String said = up.err();
        assertEquals(2, up.exit(), said);
        assertFalse(Files.exists(dir.resolve("data-" + more.length).resolve("engine.mv.db")), "nothing started: " + said);
        return said;
    }
}
