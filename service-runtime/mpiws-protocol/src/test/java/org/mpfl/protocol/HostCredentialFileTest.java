package org.mpfl.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A component reads its own credential only from a file that nobody else may read or write, as SSH reads a key. */
class HostCredentialFileTest {
    @TempDir
    Path dir;

    private Path file(String mode) throws IOException {
        Path f = dir.resolve("node.credential");
        Files.writeString(f, HostCredential.generate("https://engine:8443", "node1").text());
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString(mode));
        return f;
    }

    @Test
    void anOwnerOnlyFileIsRead() throws IOException {
        assertEquals("node1", HostCredential.readPrivate(file("rw-------")).hostId());
    }

    @Test
    void aFileOthersMayReadOrWriteIsRefusedSayingHowToMendIt() throws IOException {
        for (String mode : new String[] {"rw-r--r--", "rw-rw----", "rw-----w-"}) {
            Path f = file(mode);
            IOException e = assertThrows(IOException.class, () -> HostCredential.readPrivate(f), mode);
            assertTrue(e.getMessage().contains("is readable or writable by others (" + mode + ")")
                    && e.getMessage().contains("chmod 600 " + f), e.getMessage());
            Files.delete(f);
        }
    }

    @Test
    void aMissingFileIsSaidSo() {
        IOException e = assertThrows(IOException.class, () -> HostCredential.readPrivate(dir.resolve("nothere.credential")));
        assertEquals(dir.resolve("nothere.credential") + ": no such file", e.getMessage());
    }

    /** Its engine= line is checked as --engine is: a URL without its scheme is refused, naming the file and the line. */
    @Test
    void anEngineLineThatIsNoEngineUrlIsRefusedNamingTheFile() throws IOException {
        Path f = file("rw-------");
        Files.writeString(f, Files.readString(f).replace("engine=https://engine:8443", "engine=engine:8443"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> HostCredential.readPrivate(f));
        assertEquals(f + ": its engine= line must be the engine's URL, http://HOST:PORT or https://HOST:PORT (e.g."
                + " http://127.0.0.1:8080), got 'engine:8443'", e.getMessage());
        assertEquals("https://engine:8443", HostCredential.parse(HostCredential.generate("https://engine:8443", "n").text(),
                "x").engineUrl(), "an engine's own URL passes");
    }

    /**
     * The file's comment says how to revoke it with the command the docs name, its engine's URL filled in, and the REST
     * call second: it named only the REST call.
     */
    @Test
    void theFilesCommentNamesTheCommandThatRevokesIt() {
        HostCredential c = HostCredential.generate("https://engine:8443", "node1");
        assertTrue(c.text().startsWith("# MPFL host credential: keep it secret (mode 0600); revoke it with\n"
                + "# mpflc host-token --engine https://engine:8443 --revoke " + c.id() + "\n"
                + "# (over REST: DELETE /api/registry/credentials/" + c.id() + ")\n"), c.text());
        HostCredential noEngine = HostCredential.generate(null, "node2");
        assertTrue(noEngine.text().contains("# mpflc host-token --engine URL --revoke " + noEngine.id() + "\n"), noEngine.text());
        assertEquals(c, HostCredential.parse(c.text(), "x"), "the comment is no part of what is read");
    }
}
