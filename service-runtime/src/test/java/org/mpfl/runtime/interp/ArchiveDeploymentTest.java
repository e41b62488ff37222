package org.mpfl.runtime.interp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.compiler.MpflCompiler;
import org.mpfl.compiler.gen.BuildWriter;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.Endpoint;
import org.mpfl.protocol.MpiwsClient;
import org.mpfl.protocol.RankStatus;
import org.mpfl.protocol.RunRequest;
import org.mpfl.runtime.host.ServiceHost;

/**
 * Generated service archives ({@code mpflc compile}) in a service host: deployed through the host's
 * deployment call and found in a {@code services/} directory at start, they become service types
 * whose ranks run the interpreter with {@code compute} classes from the archive's own {@code lib/}
 * jar (a class that is not on the host's class path), one class loader per deployed archive.
 */
@Timeout(120)
class ArchiveDeploymentTest {
    @TempDir
    static Path work;
    static Path build;
    static ServiceHost host;

    @BeforeAll
    static void compileWorkflow() throws Exception {
        Path docDir = Files.createDirectories(work.resolve("doc"));
        jar(docDir.resolve("twice.jar"), "gen.Twice", """
                package gen;
                public class Twice implements org.mpfl.runtime.api.Activity {
                    public java.util.Map<String, Object> execute(java.util.Map<String, Object> in,
                            org.mpfl.runtime.api.ActivityContext ctx) {
                        return java.util.Map.of("y", 2 * (Integer) in.get("x"));
                    }
                }
                """);
        Path doc = docDir.resolve("twice.mpfl.xml");
        Files.writeString(doc, """
                <?xml version="1.0" encoding="UTF-8"?>
                <workflow xmlns="urn:mpfl:1.0" name="twice">
                  <library path="twice.jar"/>
                  <param name="base" type="int" default="10"/>
                  <process name="doubler" ranks="2" service="Doubler">
                    <var name="x" type="int" init="base + rank"/>
                    <var name="y" type="int"/>
                    <var name="all" type="int[]"/>
                    <compute class="gen.Twice" in="x" out="y"/>
                    <allgather data="y" into="all"/>
                    <output name="all" value="all"/>
                  </process>
                </workflow>
                """);
        MpflCompiler.CheckResult r = new MpflCompiler().check(doc, "twice.mpfl.xml", Map.of());
        assertTrue(r.ok(), r.diagnostics().sorted().toString());
        build = work.resolve("build");
        BuildWriter.write(r.workflow(), Files.readAllBytes(doc), docDir, build);
        host = ServiceHost.start(ServiceHost.Options.loopback());
    }

    @AfterAll
    static void stopHost() {
        if (host != null) {
            host.close();
        }
    }

    /** Compiles one class against the runtime API and packs it into a jar. */
    private static void jar(Path jar, String className, String source) throws IOException {
        Path src = Files.createTempDirectory(work, "src");
        Path file = src.resolve(className.replace('.', '/') + ".java");
        Files.createDirectories(file.getParent());
        Files.writeString(file, source);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        int rc = javac.run(null, null, null, "-classpath", System.getProperty("java.class.path"), "-d", src.toString(),
                file.toString());
        assertEquals(0, rc, "javac");
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out)) {
            String entry = className.replace('.', '/') + ".class";
            j.putNextEntry(new JarEntry(entry));
            j.write(Files.readAllBytes(src.resolve(entry)));
            j.closeEntry();
        }
    }

    @Test
    void theLibraryIsNotOnTheHostClassPath() {
        assertThrows(ClassNotFoundException.class, () -> Class.forName("gen.Twice"));
    }

    @Test
    void deployedArchiveRunsTheInterpreterWithItsLibraries() throws Exception {
        host.deployArchive("Doubler", Files.readAllBytes(build.resolve(archiveName())));
        assertTrue(host.hasServiceType("Doubler"));
        List<RankStatus> end = run("Doubler", Map.of("base", 20));
        for (RankStatus s : end) {
            assertEquals("done", s.state(), String.valueOf(s.failure()));
        }
        assertEquals("[40,42]", end.get(0).outputsJson().get("all"));
    }

    @Test
    void redeployingAServiceReplacesIt() throws Exception {
        byte[] archive = Files.readAllBytes(build.resolve(archiveName()));
        host.deployArchive("Doubler", archive);
        assertEquals("done", run("Doubler", Map.of()).get(0).state());
        host.deployArchive("Doubler", archive);
        List<RankStatus> again = run("Doubler", Map.of("base", 1));
        assertEquals("done", again.get(0).state(), String.valueOf(again.get(0).failure()));
        assertEquals("[2,4]", again.get(0).outputsJson().get("all"));
    }

    @Test
    void deployingTheSameArchiveAgainKeepsTheServiceInPlace() throws Exception {
        byte[] archive = Files.readAllBytes(build.resolve(archiveName()));
        host.deployArchive("Doubler", archive);
        Object service = serviceObject();
        host.deployArchive("Doubler", archive);
        assertTrue(service == serviceObject(), "not redeployed");
        assertEquals("done", run("Doubler", Map.of()).get(0).state());
    }

    private static Object serviceObject() throws org.apache.axis2.AxisFault {
        return host.axis2Context().getAxisConfiguration().getService("Doubler");
    }

    @Test
    void anArchiveWithoutItsProgramIsRefusedAndDoesNotBlockLaterDeployments() throws Exception {
        byte[] broken = withoutEntry(Files.readAllBytes(build.resolve(archiveName())), "mpfl/program.json");
        IOException e = assertThrows(IOException.class, () -> host.deployArchive("Doubler", broken));
        assertTrue(e.getMessage().contains("mpfl/program.json"), e.getMessage());
        host.deployArchive("Doubler", Files.readAllBytes(build.resolve(archiveName())));
        assertEquals("done", run("Doubler", Map.of()).get(1).state());
    }

    /**
     * Axis2 loads an archive's lib/ jars from world-readable copies in java.io.tmpdir/axis2-tmp-N.tmp, which it
     * never removes itself (only the next Axis2 to start does): a host deletes its services' copies when it closes.
     */
    @Test
    void aClosedHostLeavesNoCopyOfItsArchivesLibraries() throws Exception {
        ServiceHost own = ServiceHost.start(ServiceHost.Options.loopback());
        List<Path> copies;
        try {
            own.deployArchive("Doubler", Files.readAllBytes(build.resolve(archiveName())));
            assertEquals("done", run(own, "Doubler", Map.of()).get(0).state());
            copies = new ArrayList<>();
            var loader = (java.net.URLClassLoader) own.axis2Context().getAxisConfiguration().getService("Doubler").getClassLoader();
            for (java.net.URL url : loader.getURLs()) {
                Path file = Path.of(url.toURI());
                if (file.getParent().getFileName().toString().startsWith("axis2-tmp-")) {
                    copies.add(file);
                }
            }
            assertTrue(!copies.isEmpty() && copies.stream().allMatch(Files::isRegularFile), "Axis2 loads from copies: " + copies);
        } finally {
            own.close();
        }
        assertTrue(copies.stream().noneMatch(Files::exists), "left behind: " + copies);
    }

    @Test
    void archivesInAServicesDirectoryAreDeployedAtStart() throws Exception {
        Path services = Files.createDirectories(work.resolve("services"));
        Files.copy(build.resolve(archiveName()), services.resolve("Doubler.aar"));
        host.close();
        host = null;
        host = ServiceHost.start(new ServiceHost.Options("127.0.0.1", 0, services, null, null, true));
        assertTrue(host.hasServiceType("Doubler"), host.serviceTypes().toString());
        assertEquals("[20,22]", run("Doubler", Map.of()).get(0).outputsJson().get("all"));
    }

    private static String archiveName() throws IOException {
        try (var s = Files.list(build)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".aar")).findFirst().orElseThrow();
        }
    }

    private static byte[] withoutEntry(byte[] archive, String entry) throws IOException {
        var out = new java.io.ByteArrayOutputStream();
        try (var in = new java.util.zip.ZipInputStream(new java.io.ByteArrayInputStream(archive));
             var zip = new java.util.zip.ZipOutputStream(out)) {
            for (var e = in.getNextEntry(); e != null; e = in.getNextEntry()) {
                if (!e.getName().equals(entry)) {
                    zip.putNextEntry(new java.util.zip.ZipEntry(e.getName()));
                    zip.write(in.readAllBytes());
                    zip.closeEntry();
                }
            }
        }
        return out.toByteArray();
    }

    /** Starts both ranks of the domain in this host with the MPIWS run operation and waits for their final status. */
    private static List<RankStatus> run(String service, Map<String, Object> params) throws Exception {
        return run(host, service, params);
    }

    private static List<RankStatus> run(ServiceHost host, String service, Map<String, Object> params) throws Exception {
        String domain = DomainToken.generate();
        String token = DomainToken.generate();
        List<Endpoint> endpoints = List.of(host.endpoint(service), host.endpoint(service));
        List<RunRequest.ProcessSlice> slices = List.of(new RunRequest.ProcessSlice("doubler", service, 2));
        try (MpiwsClient client = new MpiwsClient(Duration.ofSeconds(20))) {
            for (int rank = 0; rank < 2; rank++) {
                // through SOAP and Axis2's dispatch, as the engine starts ranks
                client.run(host.serviceUrl(service), new RunRequest(domain, rank, endpoints, slices, params, token, null, "auto"));
            }
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        List<RankStatus> out = new ArrayList<>();
        for (int rank = 0; rank < 2; rank++) {
            RankStatus s = host.status(domain, rank);
            while (!s.isFinal() && System.nanoTime() < deadline) {
                Thread.sleep(20);
                s = host.status(domain, rank);
            }
            out.add(s);
        }
        return out;
    }
}
