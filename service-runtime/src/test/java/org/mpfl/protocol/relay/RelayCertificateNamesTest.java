package org.mpfl.protocol.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.protocol.HostCredential;
import org.mpfl.testing.LabPki;
import org.mpfl.testing.MpflcCall;

/**
 * A relay whose certificate does not name the address it is reached at (its --advertise, else --bind) is refused at
 * its start, as mpflc host and mpflc up are: found by the deployment walkthrough, where such a relay started and
 * printed its ready line, and hosts would only have failed their TLS handshakes with it.
 */
class RelayCertificateNamesTest {
    @Test
    void anAddressTheCertificateDoesNotNameIsRefusedAtStart(@TempDir Path dir) throws Exception {
        LabPki.Machine loopbackOnly = LabPki.create(dir.resolve("pki"), "lab").issue("relay1", "127.0.0.1");
        Path file = dir.resolve("relay1.credential");
        Files.writeString(file, HostCredential.generate("https://127.0.0.1:9", "relay1").text());
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        List<String> args = new ArrayList<>(List.of("relay", "--credential-file", file.toString(), "--bind", "127.0.0.7",
                "--port", "0"));
        args.addAll(loopbackOnly.pemArguments());
        MpflcCall relay = MpflcCall.run(args.toArray(String[]::new));
        String said = relay.err();
        assertEquals(2, relay.exit(), said);
        assertTrue(said.contains("this relay is reached at 127.0.0.7 (--bind), but its certificate names 127.0.0.1, not 127.0.0.7"),
                said);
    }
}
