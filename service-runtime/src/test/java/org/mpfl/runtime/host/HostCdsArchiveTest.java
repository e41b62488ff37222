package org.mpfl.runtime.host;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.mpfl.protocol.launch.HostProcesses;
import org.mpfl.testing.StartsProcesses;

/**
 * The class-data sharing archive of the hosts ({@code mpfl.host.cdsArchive}, which {@code bin/mpflc}
 * sets when the build trained one): the launcher passes it to every host JVM it starts when the file
 * exists and not otherwise, and a host given a stale or corrupt archive (say, left from another build)
 * still starts and serves — the JVM ignores an archive that does not match, silently.
 */
@StartsProcesses
class HostCdsArchiveTest {
    private static String commandLine(Process p) throws Exception {
        return new String(Files.readAllBytes(Path.of("/proc/" + p.pid() + "/cmdline")), StandardCharsets.UTF_8)
                .replace('\0', ' ');
    }

    @Test
    void aCorruptArchiveIsPassedAndIgnoredAndAMissingOneIsNotPassed() throws Exception {
        Path junk = Files.createTempFile("mpfl-host-", ".jsa");
        Path log = Files.createTempDirectory("mpfl-cds-test");
        String before = System.getProperty("mpfl.host.cdsArchive");
        try {
            Files.write(junk, "not a CDS archive".getBytes(StandardCharsets.US_ASCII));
            System.setProperty("mpfl.host.cdsArchive", junk.toString());
            try (HostProcesses hosts = HostProcesses.builder().count(1).logDirectory(log).jvmArg("-Xmx256m").start()) {
                assertTrue(commandLine(hosts.get(0).process()).contains("-XX:SharedArchiveFile=" + junk), "archive passed");
                // it serves HTTP (a host that failed to start would not have printed its ready line either)
                int status = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(hosts.get(0).baseUrl() + "/"))
                        .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
                assertTrue(status >= 200 && status < 600, "HTTP status " + status);
                String hostLog = String.join("\n", Files.readAllLines(log.resolve("host-0.log")));
                assertFalse(hostLog.contains("[cds"), "no CDS warning in the host's log: " + hostLog);
            }
            System.setProperty("mpfl.host.cdsArchive", junk + ".missing");
            try (HostProcesses hosts = HostProcesses.builder().count(1).logDirectory(log).jvmArg("-Xmx256m").start()) {
                assertFalse(commandLine(hosts.get(0).process()).contains("SharedArchiveFile"), "no archive, no flag");
                assertTrue(hosts.get(0).isAlive());
            }
        } finally {
            if (before == null) {
                System.clearProperty("mpfl.host.cdsArchive");
            } else {
                System.setProperty("mpfl.host.cdsArchive", before);
            }
            Files.deleteIfExists(junk);
            for (Path p : List.of(log.resolve("host-0.log"))) {
                Files.deleteIfExists(p);
            }
            Files.deleteIfExists(log);
        }
    }
}
