package org.mpfl.engine.deploy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;

/** Renaming an archive's service for a qualified deployment: one attribute changes, nothing else. */
class ArchiveDescriptorTest {
    static final long TIME = 946_684_800_000L;

    static byte[] zip(Map<String, String> entries) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ZipOutputStream z = new ZipOutputStream(out)) {
            for (var e : entries.entrySet()) {
                ZipEntry entry = new ZipEntry(e.getKey());
                entry.setTime(TIME);
                z.putNextEntry(entry);
                z.write(e.getValue().getBytes(StandardCharsets.UTF_8));
                z.closeEntry();
            }
        }
        return out.toByteArray();
    }

    static Map<String, String> unzip(byte[] archive) throws IOException {
        Map<String, String> out = new LinkedHashMap<>();
        try (ZipInputStream z = new ZipInputStream(new ByteArrayInputStream(archive))) {
            for (ZipEntry e; (e = z.getNextEntry()) != null;) {
                assertEquals(TIME, e.getTime(), e.getName());
                out.put(e.getName(), new String(z.readAllBytes(), StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    static byte[] archive(String descriptor) throws IOException {
        Map<String, String> entries = new LinkedHashMap<>();
        entries.put("META-INF/services.xml", descriptor);
        entries.put("mpfl/program.json", "{\"process\":\"p\"}");
        return zip(entries);
    }

    static final String GENERATED = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- generated -->\n<service name=\"node\" "
            + "scope=\"application\"><parameter name=\"mpfl.process\">p</parameter></service>\n";

    @Test
    void renamesTheServiceAndKeepsEveryOtherEntryAndItsTime() throws IOException {
        byte[] renamed = ArchiveDescriptor.renamed(archive(GENERATED), "wf.v2.node");
        Map<String, String> entries = unzip(renamed);
        assertEquals(2, entries.size());
        assertEquals("{\"process\":\"p\"}", entries.get("mpfl/program.json"));
        String xml = entries.get("META-INF/services.xml");
        assertTrue(xml.contains("<service name=\"wf.v2.node\" scope=\"application\">"), xml);
        assertTrue(xml.contains("<parameter name=\"mpfl.process\">p</parameter>") && xml.contains("<!-- generated -->"), xml);
        // the same archive and name give the same bytes: hosts and engine skip what they already have
        assertArrayEquals(renamed, ArchiveDescriptor.renamed(archive(GENERATED), "wf.v2.node"));
    }

    @Test
    void anArchiveAlreadyNamedSoIsLeftAsItIs() throws IOException {
        byte[] a = archive(GENERATED);
        assertSame(a, ArchiveDescriptor.renamed(a, "node"));
    }

    @Test
    void aGroupOfOneServiceIsRenamedAGroupOfTwoIsRefused() throws IOException {
        String one = "<serviceGroup><service name=\"a\"/></serviceGroup>";
        assertTrue(unzip(ArchiveDescriptor.renamed(archive(one), "x")).get("META-INF/services.xml").contains("name=\"x\""));
        IOException e = assertThrows(IOException.class, () -> ArchiveDescriptor.renamed(
                archive("<serviceGroup><service name=\"a\"/><service name=\"b\"/></serviceGroup>"), "x"));
        assertTrue(e.getMessage().contains("describes 2 services"), e.getMessage());
    }

    @Test
    void doctypesNonArchivesAndArchivesWithoutDescriptorAreRefused() throws IOException {
        // an external entity would read a file of the engine's machine into the archive sent to hosts
        String xxe = "<?xml version=\"1.0\"?><!DOCTYPE service [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>"
                + "<service name=\"node\">&x;</service>";
        IOException e = assertThrows(IOException.class, () -> ArchiveDescriptor.renamed(archive(xxe), "x"));
        assertTrue(e.getMessage().contains("not well-formed") || e.getMessage().contains("DOCTYPE"), e.getMessage());
        assertThrows(IOException.class, () -> ArchiveDescriptor.renamed("not a zip".getBytes(StandardCharsets.UTF_8), "x"));
        IOException none = assertThrows(IOException.class, () -> ArchiveDescriptor.renamed(zip(Map.of("a.txt", "a")), "x"));
        assertTrue(none.getMessage().contains("no META-INF/services.xml"), none.getMessage());
    }

    @Test
    void qualifiedNamesAreUnambiguousAndOnlyForMpflNames() {
        assertEquals("ring.v3.node", ServiceNames.ofVersion("ring", 3, "node"));
        assertEquals("my.service", ServiceNames.ofVersion("ring", 3, "my.service"), "not an MPFL name: kept");
        assertEquals("node", ServiceNames.ofVersion("a b", 1, "node"));
        String h = ServiceNames.ofArchive("ring", new byte[] {1, 2, 3}, "node");
        assertTrue(h.matches("ring\\.h[0-9a-f]{12}\\.node"), h);
        assertEquals(h, ServiceNames.ofArchive("ring", new byte[] {1, 2, 3}, "node"));
        assertTrue(!h.equals(ServiceNames.ofArchive("ring", new byte[] {1, 2, 4}, "node")));
    }
}
