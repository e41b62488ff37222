package org.mpfl.compiler.gen;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.compiler.MpflCompiler;
import org.mpfl.ir.plan.DeploymentPlan;
import org.mpfl.ir.plan.PlanJson;
import org.mpfl.ir.plan.RuntimeBinding;
import org.mpfl.ir.plan.ServiceProgram;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

class ServiceArchiveWriterTest {
    static final Path HEAT = Paths.get("src/test/resources/fixtures/valid/heat1d.mpfl.xml");

    @TempDir
    Path out;

    private List<Path> compile(Path document, Path target) throws IOException {
        MpflCompiler.CheckResult result = new MpflCompiler(List.of()).check(document, document.getFileName().toString(), Map.of());
        assertTrue(result.ok(), () -> result.diagnostics().sorted().toString());
        return BuildWriter.write(result.workflow(), Files.readAllBytes(document), document.toAbsolutePath().getParent(), target);
    }

    static Map<String, byte[]> entries(Path archive) throws IOException {
        Map<String, byte[]> entries = new HashMap<>();
        try (ZipInputStream zip = new ZipInputStream(Files.newInputStream(archive))) {
            for (ZipEntry e = zip.getNextEntry(); e != null; e = zip.getNextEntry()) {
                entries.put(e.getName(), zip.readAllBytes());
            }
        }
        return entries;
    }

    private static Document xml(byte[] bytes) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        return factory.newDocumentBuilder().parse(new ByteArrayInputStream(bytes));
    }

    @Test
    void archiveHoldsDescriptorWsdlProgramPlanAndLibraries() throws Exception {
        List<Path> written = compile(HEAT, out);
        assertEquals(List.of(out.resolve("plan.json"), out.resolve("solver.aar")), written);
        Map<String, byte[]> entries = entries(out.resolve("solver.aar"));
        assertEquals(new java.util.TreeSet<>(List.of("META-INF/services.xml", "META-INF/HeatSolver.wsdl",
                "mpfl/program.json", "mpfl/plan.json", "lib/heat-activities.jar")), new java.util.TreeSet<>(entries.keySet()));
        assertArrayEquals(Files.readAllBytes(HEAT.resolveSibling("lib/heat-activities.jar")), entries.get("lib/heat-activities.jar"));

        Element service = xml(entries.get("META-INF/services.xml")).getDocumentElement();
        assertEquals("service", service.getTagName());
        assertEquals("HeatSolver", service.getAttribute("name"));
        Map<String, String> parameters = new HashMap<>();
        NodeList list = service.getElementsByTagName("parameter");
        for (int i = 0; i < list.getLength(); i++) {
            Element p = (Element) list.item(i);
            parameters.put(p.getAttribute("name"), p.getTextContent());
        }
        assertEquals(RuntimeBinding.INTERPRETER_CLASS, parameters.get(RuntimeBinding.PROGRAM_CLASS_PARAMETER));
        assertEquals("mpfl/program.json", parameters.get(RuntimeBinding.PROGRAM_ENTRY_PARAMETER));
        assertEquals("solver", parameters.get(RuntimeBinding.PROCESS_PARAMETER));
        assertEquals(5, service.getElementsByTagName("operation").getLength());
        // what a stock Axis2 container needs: the life cycle and the receivers of the runtime
        assertEquals(RuntimeBinding.LIFECYCLE_CLASS, service.getAttribute("class"));
        NodeList receivers = service.getElementsByTagName("messageReceiver");
        assertEquals(5, receivers.getLength());
        for (int i = 0; i < receivers.getLength(); i++) {
            Element receiver = (Element) receivers.item(i);
            String operation = ((Element) receiver.getParentNode()).getAttribute("name");
            assertEquals(RuntimeBinding.isRequestResponse(operation) ? RuntimeBinding.IN_OUT_RECEIVER_CLASS
                    : RuntimeBinding.ROBUST_IN_ONLY_RECEIVER_CLASS, receiver.getAttribute("class"), operation);
        }

        Document wsdl = xml(entries.get("META-INF/HeatSolver.wsdl"));
        NodeList operations = wsdl.getElementsByTagNameNS("http://schemas.xmlsoap.org/wsdl/", "operation");
        List<String> names = new ArrayList<>();
        for (int i = 0; i < operations.getLength(); i++) {
            String name = ((Element) operations.item(i)).getAttribute("name");
            if (!names.contains(name)) {
                names.add(name);
            }
        }
        assertEquals(List.of("run", "store", "bstore", "status", "abort"), names);
        assertEquals(1, wsdl.getElementsByTagNameNS("http://schemas.xmlsoap.org/wsdl/soap12/", "binding").getLength());
        assertEquals("HeatSolver", ((Element) wsdl.getElementsByTagNameNS("http://schemas.xmlsoap.org/wsdl/", "service").item(0))
                .getAttribute("name"));

        ServiceProgram program = PlanJson.mapper().readValue(entries.get("mpfl/program.json"), ServiceProgram.class);
        assertEquals("solver", program.process());
        assertEquals("HeatSolver", program.service());
        DeploymentPlan plan = PlanJson.readPlan(new ByteArrayInputStream(entries.get("mpfl/plan.json")));
        assertEquals(plan.process("solver").program(), program.program());
        assertEquals(PlanJson.readPlan(out.resolve("plan.json")), plan);
    }

    @Test
    void archivesGetTheSamePermissionsAsOtherOutputFiles() throws IOException {
        compile(HEAT, out);
        if (out.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            assertEquals(Files.getPosixFilePermissions(out.resolve("plan.json")),
                    Files.getPosixFilePermissions(out.resolve("solver.aar")), "not owner-only like a temporary file");
        }
        try (java.util.stream.Stream<Path> files = Files.list(out)) {
            assertEquals(2, files.count(), "no leftover .part file");
        }
    }

    @Test
    void archivesAreReproducible() throws IOException {
        compile(HEAT, out.resolve("a"));
        compile(HEAT, out.resolve("b"));
        assertArrayEquals(Files.readAllBytes(out.resolve("a/solver.aar")), Files.readAllBytes(out.resolve("b/solver.aar")));
    }

    @Test
    void oneArchivePerProcess() throws IOException {
        List<Path> written = compile(Paths.get("src/test/resources/fixtures/valid/every-activity.mpfl.xml"), out);
        assertEquals(3, written.size());
        assertTrue(entries(out.resolve("worker.aar")).containsKey("META-INF/worker.wsdl"));
        assertTrue(entries(out.resolve("master.aar")).containsKey("META-INF/Master.wsdl"));
    }

    @Test
    void defaultOutputDirectoryIsNextToTheDocument() {
        assertEquals(Paths.get("/x/y/heat.build"), BuildWriter.defaultOutputDirectory(Paths.get("/x/y/heat.mpfl.xml")));
        assertEquals(Paths.get("/x/ring.build"), BuildWriter.defaultOutputDirectory(Paths.get("/x/ring.xml")));
    }
}
