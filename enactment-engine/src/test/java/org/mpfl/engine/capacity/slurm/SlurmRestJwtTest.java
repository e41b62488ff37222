package org.mpfl.engine.capacity.slurm;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.capacity.CapacityException;

/**
 * The JWT slurmrestd gets: its expiry is checked on every request (a token that expires while the engine runs is
 * refused before it is sent, saying so, and a renewed file is taken up), and plain http is warned of. Without a
 * slurmrestd: the port asked is one nothing listens on, so a request that is sent "does not answer".
 */
class SlurmRestJwtTest {
    @TempDir
    Path dir;

    static String jwt(long exp) {
        Base64.Encoder b = Base64.getUrlEncoder().withoutPadding();
        return b.encodeToString("{\"alg\":\"HS256\",\"typ\":\"JWT\"}".getBytes(StandardCharsets.UTF_8)) + "."
                + b.encodeToString(("{\"sun\":\"mpfl\",\"exp\":" + exp + "}").getBytes(StandardCharsets.UTF_8)) + ".c2ln";
    }

    void write(Path file, String token) throws Exception {
        Files.writeString(file, token + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    }

    @Test
    void anExpiredTokenIsRefusedOnEveryRequestNotOnlyAtStartAndARenewedOneIsTakenUp() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Path file = dir.resolve("slurm.jwt");
        long now = System.currentTimeMillis() / 1000;
        write(file, jwt(now + 3600));
        SlurmRest rest = new SlurmRest(URI.create("http://127.0.0.1:" + port), file, SlurmJobTest.SETTINGS);
        String sent = assertThrows(CapacityException.class, () -> rest.find("mpfl-x")).getMessage();
        assertTrue(sent.contains("does not answer"), "a valid token is sent: " + sent);

        // the engine runs on; the token in the file expires
        write(file, jwt(now - 60));
        String refused = assertThrows(CapacityException.class, () -> rest.find("mpfl-x")).getMessage();
        assertTrue(refused.contains("the JWT in " + file + " expired at ") && refused.contains("scontrol token lifespan="), refused);

        write(file, jwt(now + 3600));
        assertTrue(assertThrows(CapacityException.class, () -> rest.find("mpfl-x")).getMessage().contains("does not answer"),
                "the renewed token is taken up without a restart");
    }

    @Test
    void plainHttpIsWarnedOf() {
        String remote = SlurmRest.plainHttpWarning(URI.create("http://slurm-rest.example.org:6820"));
        assertTrue(remote != null && remote.contains("plain http") && remote.contains("https") && !remote.contains("this machine"), remote);
        String local = SlurmRest.plainHttpWarning(URI.create("http://127.0.0.1:6820"));
        assertTrue(local != null && local.contains("plain http") && local.contains("this machine"), local);
        assertNull(SlurmRest.plainHttpWarning(URI.create("https://slurm-rest.example.org:6820")));
    }
}
