package org.mpfl.engine.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.ir.cli.Commands;
import org.mpfl.protocol.HostCredential;

/**
 * The engine's URL in a host's or relay's credential file ({@code engine=} line) is checked as {@code --engine} is
 * (org.mpfl.protocol.EngineReach.checkedUrl): a file with {@code engine=localhost:8080} was taken as it was, and the
 * host or relay failed later in the HTTP client's words, naming neither the file nor the URL's form. Now a usage error
 * (exit 2) naming the file, before anything starts (each command is also given a mistake of its own, which it found
 * after the file before the check: what it says instead shows the file's URL was taken).
 */
@Timeout(60)
class CredentialEngineUrlTest {
    @TempDir
    Path dir;

    private static String mpflc(int exit, String... args) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Commands.run(List.of(args), new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        String said = err.toString(StandardCharsets.UTF_8);
        assertEquals(exit, code, List.of(args) + ": " + said);
        return said;
    }

    private Path credential(String engineLine) throws Exception {
        HostCredential c = HostCredential.generate(null, "node1");
        Path f = dir.resolve("node1.credential");
        Files.writeString(f, c.text() + engineLine + "\n");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
        return f;
    }

    @Test
    void aBadEngineUrlInTheCredentialFileIsAUsageErrorNamingTheFile() throws Exception {
        for (String url : List.of("localhost:8080", "127.0.0.1:8080", "http://127.0.0.1:99999", "ftp://engine:8080")) {
            Path f = credential("engine=" + url);
            String refusal = f + ": its engine= line must be the engine's URL, http://HOST:PORT or https://HOST:PORT (e.g."
                    + " http://127.0.0.1:8080), got '" + url + "'\n";
            assertEquals("mpflc host: " + refusal, mpflc(2, "host", "--credential-file", f.toString(), "--host-id", "other"));
            assertEquals("mpflc relay: " + refusal, mpflc(2, "relay", "--credential-file", f.toString(), "--bind", "0.0.0.0"));
        }
    }

    /** The engine's own URL, as {@code mpflc host-token} writes it, passes: the same commands get to their own mistake. */
    @Test
    void anEngineUrlAsTheEngineWritesItPasses() throws Exception {
        Path f = credential("engine=http://127.0.0.1:8080");
        assertEquals("mpflc host: --host-id other differs from the credential's host id node1\n",
                mpflc(2, "host", "--credential-file", f.toString(), "--host-id", "other"));
    }
}
