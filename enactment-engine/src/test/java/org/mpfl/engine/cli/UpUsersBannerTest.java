package org.mpfl.engine.cli;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.access.TestIssuer;
import org.mpfl.testing.StartsProcesses;
import org.mpfl.testing.childjvm.ChildJvm;

/**
 * {@code mpflc up --oidc-issuer} says whose users the engine accepts, and asks the issuer once: an issuer given with a
 * trailing slash it does not use (its discovery names another 'iss') is warned about at the start, where it showed only
 * as every user's 503.
 */
@StartsProcesses
@Timeout(180)
class UpUsersBannerTest {
    @TempDir
    Path dir;

    @Test
    void theBannerNamesTheIssuerAndAWrongIssuerIsWarnedAboutAtTheStart() throws Exception {
        try (TestIssuer issuer = TestIssuer.start()) {
            String right = issuer.issuer().toString();
            Said ok = up(right, "ok");
            assertTrue(ok.out().contains("users: OpenID Connect issuer " + right + ", audience mpfl-engine"), ok.out());
            assertFalse(ok.err().contains("WARNING: the"), ok.err());

            Said wrong = up(right + "/", "wrong");
            assertTrue(wrong.err().contains("WARNING: the discovery document of " + right + "/ names issuer '" + right + "'")
                    && wrong.err().contains("check --oidc-issuer"), wrong.err());
        }
    }

    private record Said(String out, String err) {
    }

    /** Starts {@code mpflc up} with this issuer, reads its start-up lines up to "press Ctrl-C", and stops it. */
    private Said up(String issuer, String name) throws Exception {
        List<String> cmd = new ArrayList<>(ChildJvm.command(ChildJvm.shortLivedOptions("256m"), Mpflc.class.getName()));
        cmd.addAll(List.of("up", "--hosts", "0", "--port", "0", "--bind", "127.0.0.1", "--data", dir.resolve(name).toString(),
                "--oidc-issuer", issuer, "--oidc-audience", "mpfl-engine"));
        Path err = dir.resolve(name + ".err");
        Process up = new ProcessBuilder(cmd).redirectError(err.toFile()).start();
        StringBuilder out = new StringBuilder();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(up.getInputStream(), StandardCharsets.UTF_8))) {
            // the start-up ends with this line (or the process ends: the read returns null); bounded by the class timeout
            for (String line; (line = r.readLine()) != null; ) {
                out.append(line).append('\n');
                if (line.startsWith("press Ctrl-C")) {
                    break;
                }
            }
        } finally {
            up.destroy();
            if (!up.waitFor(30, TimeUnit.SECONDS)) {
                up.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        assertTrue(out.toString().contains("press Ctrl-C"), "mpflc up started: " + out + Files.readString(err));
        return new Said(out.toString(), Files.readString(err, StandardCharsets.UTF_8));
    }
}
