package org.mpfl.runtime.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.protocol.launch.HostProcesses;
import org.mpfl.architecture.ArchitectureRules;
import org.mpfl.compiler.MpflCompiler;
import org.mpfl.compiler.gen.BuildWriter;
import org.mpfl.compiler.gen.RuntimeBundle;
import org.mpfl.ir.plan.RuntimeBinding;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.Endpoint;
import org.mpfl.protocol.MpiwsClient;
import org.mpfl.protocol.RankStatus;
import org.mpfl.protocol.RunRequest;
import org.mpfl.runtime.interp.InterpreterService;
import org.mpfl.testing.Ports;
import org.mpfl.testing.StartsProcesses;

/**
 * A generated archive compiled with the runtime bundled ({@code mpflc compile --bundle-runtime}) in a
 * stock Axis2 2.0 {@code SimpleHTTPServer}: a child JVM whose class path holds Axis2 and its
 * dependencies only (no MPFL class, no Jackson, ANTLR or SLF4J), with the archive in its repository's
 * {@code services/}. Both ranks of a ping-pong run there, their messages going through Axis2's
 * handler chain to the archive's own receivers.
 */
@Timeout(180)
@StartsProcesses
class StockAxis2ContainerTest {
    private static final String DOCUMENT = """
            <?xml version="1.0" encoding="UTF-8"?>
            <workflow xmlns="urn:mpfl:1.0" name="pingpong">
              <param name="rounds" type="int" default="3"/>
              <process name="player" ranks="2" service="PingPong">
                <var name="ball" type="int" init="0"/>
                <for var="round" from="0" to="rounds">
                  <if test="rank == 0">
                    <send to="1" data="ball + 1"/>
                    <receive from="1" into="ball"/>
                  <else>
                    <receive from="0" into="ball"/>
                    <send to="0" data="ball + 1"/>
                  </else>
                  </if>
                </for>
                <output name="ball" value="ball"/>
              </process>
            </workflow>
            """;

    @TempDir
    Path work;

    @Test
    void runtimeClassNamesOfTheCompilerMatchTheRuntime() {
        assertEquals(MpiwsInOutReceiver.class.getName(), RuntimeBinding.IN_OUT_RECEIVER_CLASS);
        assertEquals(MpiwsRobustInOnlyReceiver.class.getName(), RuntimeBinding.ROBUST_IN_ONLY_RECEIVER_CLASS);
        assertEquals(ContainerServiceLifeCycle.class.getName(), RuntimeBinding.LIFECYCLE_CLASS);
        assertEquals(InterpreterService.class.getName(), RuntimeBinding.RUNTIME_CLASSES[0]);
    }

    @Test
    void aBundledArchiveRunsInAStockAxis2SimpleHttpServer() throws Exception {
        Path doc = work.resolve("pingpong.mpfl.xml");
        Files.writeString(doc, DOCUMENT);
        MpflCompiler.CheckResult r = new MpflCompiler().check(doc, "pingpong.mpfl.xml", Map.of());
        assertTrue(r.ok(), r.diagnostics().sorted().toString());
        RuntimeBundle runtime = RuntimeBundle.fromClassPath();
        Path build = work.resolve("build");
        BuildWriter.write(r.workflow(), Files.readAllBytes(doc), work, build, runtime);
        Path archive = build.resolve("player.aar");
        try (ZipFile zip = new ZipFile(archive.toFile())) {
            for (String jar : runtime.jars().keySet()) {
                assertTrue(zip.getEntry("lib/" + jar) != null, "lib/" + jar + " bundled");
            }
        }
        Set<String> classes = classesIn(archive);
        // the walk reaches into the bundled jars: the interpreter and the IR it runs are there
        assertTrue(classes.contains(InterpreterService.class.getName()), "the walk found the runtime's classes");
        assertTrue(classes.contains(RuntimeBinding.class.getName()), "the walk found mpfl-ir's classes");
        assertTrue(classes.contains("org.mpfl.runtime.api.RankProgram"), "the walk found mpfl-api's classes");
        List<String> compiling = classes.stream()
                .filter(c -> ArchitectureRules.isCompiling(c.contains(".") ? c.substring(0, c.lastIndexOf('.')) : "")).toList();
        assertTrue(compiling.isEmpty(), "a service archive carries no compiler, grammar or ANTLR class: " + compiling);

        Path repo = work.resolve("repo");
        Files.createDirectories(repo.resolve("services"));
        Files.createDirectories(repo.resolve("conf"));
        Files.copy(archive, repo.resolve("services/PingPong.aar"));
        // a stock configuration (as the Axis2 findings describe it), without the service host's marker
        String config = Axis2Setup.configuration();
        assertFalse(config.contains(Axis2Setup.HOST_MARKER));
        Files.writeString(repo.resolve("axis2.xml"), config);
        Files.writeString(repo.resolve("conf/axis2.xml"), config);

        // outside the ephemeral range: the container binds it only once its JVM has started, and a port from bind(0) could
        // be taken meanwhile as a dialling client's own port by a test beside this one
        int port = Ports.outsideEphemeralRange();
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                HostProcesses.tempDirectoryOption(), "-cp", containerClassPath(runtime), "-Daxis2.xml=" + repo.resolve("axis2.xml"),
                "org.apache.axis2.transport.http.SimpleHTTPServer", "-p", String.valueOf(port), "-r", repo.toString());
        Path log = work.resolve("container.log");
        Process child = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            String url = "http://127.0.0.1:" + port + "/axis2/services/PingPong";
            try (MpiwsClient client = new MpiwsClient(Duration.ofSeconds(20))) {
                String wsdl = awaitWsdl(client, url, child, log);
                for (String op : RuntimeBinding.OPERATIONS) {
                    assertTrue(wsdl.contains("name=\"" + op + "\""), "WSDL names " + op + ":\n" + wsdl);
                }
                String domain = DomainToken.generate();
                String token = DomainToken.generate();
                List<Endpoint> endpoints = List.of(new Endpoint(url, null, null), new Endpoint(url, null, null));
                List<RunRequest.ProcessSlice> slices = List.of(new RunRequest.ProcessSlice("player", "PingPong", 2));
                for (int rank = 0; rank < 2; rank++) {
                    client.run(url, new RunRequest(domain, rank, endpoints, slices, Map.of(), token, null, "auto"));
                }
                List<RankStatus> end = new ArrayList<>();
                long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                for (int rank = 0; rank < 2; rank++) {
                    RankStatus s = client.status(url, domain, rank, new DomainToken(token).proveStatus(domain, rank));
                    while (!s.isFinal() && System.nanoTime() < deadline) {
                        Thread.sleep(50);
                        s = client.status(url, domain, rank, new DomainToken(token).proveStatus(domain, rank));
                    }
                    end.add(s);
                }
                assertEquals("done", end.get(0).state(), end.get(0).failure() + "\n" + Files.readString(log));
                assertEquals("done", end.get(1).state(), end.get(1).failure() + "\n" + Files.readString(log));
                assertEquals("6", end.get(0).outputsJson().get("ball"));
                assertEquals("5", end.get(1).outputsJson().get("ball"));
            }
        } finally {
            child.destroy();
            if (!child.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
                child.destroyForcibly().waitFor();
            }
        }
    }

    @Test
    void theSameBundledArchiveRunsInAServiceHost() throws Exception {
        Path doc = work.resolve("pingpong.mpfl.xml");
        Files.writeString(doc, DOCUMENT);
        MpflCompiler.CheckResult r = new MpflCompiler().check(doc, "pingpong.mpfl.xml", Map.of());
        assertTrue(r.ok(), r.diagnostics().sorted().toString());
        Path build = work.resolve("build");
        BuildWriter.write(r.workflow(), Files.readAllBytes(doc), work, build, RuntimeBundle.fromClassPath());
        try (ServiceHost host = ServiceHost.start(ServiceHost.Options.loopback());
             MpiwsClient client = new MpiwsClient(Duration.ofSeconds(20))) {
            host.deployArchive("PingPong", Files.readAllBytes(build.resolve("player.aar")));
            String domain = DomainToken.generate();
            String token = DomainToken.generate();
            List<Endpoint> endpoints = List.of(host.endpoint("PingPong"), host.endpoint("PingPong"));
            List<RunRequest.ProcessSlice> slices = List.of(new RunRequest.ProcessSlice("player", "PingPong", 2));
            for (int rank = 0; rank < 2; rank++) {
                client.run(host.serviceUrl("PingPong"), new RunRequest(domain, rank, endpoints, slices, Map.of("rounds", 2),
                        token, null, "auto"));
            }
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            RankStatus s = host.status(domain, 0);
            while (!s.isFinal() && System.nanoTime() < deadline) {
                Thread.sleep(20);
                s = host.status(domain, 0);
            }
            assertEquals("done", s.state(), String.valueOf(s.failure()));
            assertEquals("4", s.outputsJson().get("ball"));
        }
    }

    private static String awaitWsdl(MpiwsClient client, String url, Process child, Path log) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            try {
                return client.wsdl(url);
            } catch (MpiwsClient.MpiwsCallException e) {
                if (!child.isAlive() || System.nanoTime() > deadline) {
                    throw new AssertionError("the Axis2 container did not publish " + url + "?wsdl: " + e.getMessage()
                            + "\n" + Files.readString(log), e);
                }
                Thread.sleep(200);
            }
        }
    }

    /**
     * Every class in an archive: its own entries and those of every jar in it, at any depth (a rank
     * runs checked IR, so neither the compiler proper, nor the grammar, nor ANTLR may travel with a
     * service). Class names are binary names; a multi-release jar's versioned copies count too.
     */
    private static Set<String> classesIn(Path archive) throws IOException {
        Set<String> classes = new TreeSet<>();
        try (ZipInputStream zip = new ZipInputStream(Files.newInputStream(archive))) {
            collectClasses(zip, classes);
        }
        return classes;
    }

    private static void collectClasses(ZipInputStream zip, Set<String> classes) throws IOException {
        for (ZipEntry e = zip.getNextEntry(); e != null; e = zip.getNextEntry()) {
            String name = e.getName();
            if (name.endsWith(".jar")) {
                // read the nested jar whole: a ZipInputStream over the outer stream would close it
                try (ZipInputStream jar = new ZipInputStream(new ByteArrayInputStream(zip.readAllBytes()))) {
                    collectClasses(jar, classes);
                }
            } else if (name.endsWith(".class")) {
                String path = name.replaceFirst("^META-INF/versions/\\d+/", "");
                classes.add(path.substring(0, path.length() - ".class".length()).replace('/', '.'));
            }
        }
    }

    /**
     * This JVM's class path without any MPFL jar or class directory and without what the archive
     * brings (Jackson, ANTLR, SLF4J): Axis2 and its dependencies.
     */

    private static String containerClassPath(RuntimeBundle runtime) throws IOException {
        Set<Path> bundled = new HashSet<>();
        for (Path p : runtime.jars().values()) {
            bundled.add(p.toRealPath());
        }
        List<String> kept = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (entry.isEmpty()) {
                continue;
            }
            Path p = Path.of(entry);
            String unix = entry.replace('\\', '/');
            if (unix.contains("/org/mpfl/") || unix.contains("/target/classes") || unix.contains("/target/test-classes")
                    || (Files.exists(p) && bundled.contains(p.toRealPath()))
                    || p.getFileName().toString().startsWith("slf4j-")) {
                continue;
            }
            kept.add(entry);
        }
        return String.join(File.pathSeparator, kept);
    }
}
