package org.mpfl.protocol.relay;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.ir.cli.UsageException;
import org.mpfl.protocol.HostCredential;

/**
 * A relay tells the engine and its hosts where to reach it: listening on every address (the default bind) it must
 * be told which one that is, or the engine, unable to watch "0.0.0.0:7070", dropped it without a word.
 */
class RelayAdvertiseTest {
    @Test
    void aRelayOnTheWildcardAddressNeedsToBeToldWhereItIsReached(@TempDir Path dir) throws Exception {
        Path file = relayCredential(dir);
        for (List<String> args : List.of(List.of("--credential-file", file.toString()),
                List.of("--credential-file", file.toString(), "--bind", "0.0.0.0"))) {
            UsageException e = assertThrows(UsageException.class, () -> new RelayCommand().run(args,
                    new PrintStream(new ByteArrayOutputStream()), new PrintStream(new ByteArrayOutputStream())));
            assertTrue(e.getMessage().contains("listens everywhere, so say where hosts and the engine reach this relay:"
                    + " --advertise HOST"), e.getMessage());
        }
    }

    /** A credential file for relay {@code relay1} of an engine that is not there (mode 0600, as a relay requires). */
    static Path relayCredential(Path dir) throws java.io.IOException {
        Path file = dir.resolve("relay1.credential");
        Files.writeString(file, HostCredential.generate("http://127.0.0.1:9", "relay1").text());
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        return file;
    }
}
