package org.mpfl.runtime.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.compiler.MpflCompiler;
import org.mpfl.compiler.gen.BuildWriter;
import org.mpfl.ir.plan.RuntimeBinding;
import org.mpfl.protocol.MpiwsClient;
import org.mpfl.protocol.MpiwsWsdl;
import org.mpfl.runtime.transport.Envelope;
import org.mpfl.runtime.transport.Payload;

/**
 * The WSDL has one source, the protocol's template: the copy a compiled archive carries and what a
 * service host serves at {@code ?wsdl} are both that template filled in (they differ only in the
 * documentation line and the address), and the template's schema lists exactly the runtime's message
 * kinds and payload types and the operations the runtime binds.
 */
class MpiwsWsdlAgreementTest {
    private static final String DOCUMENT = """
            <?xml version="1.0" encoding="UTF-8"?>
            <workflow xmlns="urn:mpfl:1.0" name="tiny">
              <process name="p" ranks="1" service="Tiny">
                <output name="x" value="1"/>
              </process>
            </workflow>
            """;

    @TempDir
    Path work;

    @Test
    void theArchivesCopyAndTheHostsWsdlAreTheOneTemplate() throws Exception {
        Path doc = work.resolve("tiny.mpfl.xml");
        Files.writeString(doc, DOCUMENT);
        MpflCompiler.CheckResult r = new MpflCompiler().check(doc, "tiny.mpfl.xml", Map.of());
        Path build = work.resolve("build");
        BuildWriter.write(r.workflow(), Files.readAllBytes(doc), work, build, null);
        String archived;
        try (ZipFile zip = new ZipFile(build.resolve("p.aar").toFile())) {
            var entry = zip.getEntry("META-INF/Tiny.wsdl");
            assertNotNull(entry, "the archive carries META-INF/Tiny.wsdl");
            archived = new String(zip.getInputStream(entry).readAllBytes(), StandardCharsets.UTF_8);
        }
        try (ServiceHost host = ServiceHost.start(ServiceHost.Options.loopback());
             MpiwsClient client = new MpiwsClient(Duration.ofSeconds(20))) {
            host.deployArchive("Tiny", Files.readAllBytes(build.resolve("p.aar")));
            String served = client.wsdl(host.serviceUrl("Tiny"));
            assertEquals(normalised(archived), normalised(served));
            assertEquals(MpiwsWsdl.of("Tiny", "MPFL service host " + host.hostId(), host.serviceUrl("Tiny")), served);
        }
        assertEquals(MpiwsWsdl.of("Tiny", "MPFL workflow tiny, process p", "http://localhost:8080/axis2/services/Tiny"),
                archived);
    }

    @Test
    void theSchemaListsTheRuntimesKindsPayloadTypesAndOperations() {
        String wsdl = MpiwsWsdl.template();
        assertEquals(Arrays.stream(Envelope.Kind.values()).map(Enum::name).toList(), enumeration(wsdl, "Kind"));
        assertEquals(Arrays.stream(Payload.Type.values()).map(Enum::name).toList(), enumeration(wsdl, "PayloadType"));
        List<String> bound = new ArrayList<>();
        Matcher m = Pattern.compile("<soap12:operation soapAction=\"urn:mpfl:mpiws:(\\w+)\"").matcher(wsdl);
        while (m.find()) {
            bound.add(m.group(1));
        }
        assertEquals(Arrays.stream(RuntimeBinding.OPERATIONS).sorted().toList(), bound.stream().sorted().toList());
    }

    private static List<String> enumeration(String wsdl, String simpleType) {
        Matcher type = Pattern.compile("<xs:simpleType name=\"" + simpleType + "\">(.*?)</xs:simpleType>", Pattern.DOTALL)
                .matcher(wsdl);
        if (!type.find()) {
            throw new AssertionError("no simple type " + simpleType + " in the WSDL");
        }
        List<String> values = new ArrayList<>();
        Matcher v = Pattern.compile("<xs:enumeration value=\"(\\w+)\"/>").matcher(type.group(1));
        while (v.find()) {
            values.add(v.group(1));
        }
        return values;
    }

    /** Without the documentation line and the address: what is the contract. */
    private static String normalised(String wsdl) {
        return wsdl.replaceAll("(?s)<wsdl:documentation>.*?</wsdl:documentation>", "")
                .replaceAll("location=\"[^\"]*\"", "location=\"\"");
    }
}
