package org.mpfl.compiler.parse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.compiler.MpflCompiler;
import org.mpfl.compiler.ast.Attribute;
import org.mpfl.compiler.ast.Element;
import org.mpfl.ir.diag.Diagnostic;
import org.mpfl.ir.diag.Diagnostics;

class DocumentReaderTest {
    @TempDir
    Path dir;

    private static final String SECRET = "TOP-SECRET-7f3a9c";

    private List<Diagnostic> check(String document) throws IOException {
        Path file = dir.resolve("doc.mpfl.xml");
        Files.writeString(file, document);
        return new MpflCompiler(List.of()).check(file, "doc.mpfl.xml", Map.of()).diagnostics().sorted();
    }

    @Test
    void externalFileEntityIsRefusedWithoutReadingIt() throws IOException {
        Path secret = dir.resolve("secret.txt");
        Files.writeString(secret, SECRET);
        for (String doc : List.of(
                "<!DOCTYPE workflow [ <!ENTITY s SYSTEM \"" + secret.toUri() + "\"> ]>\n"
                        + "<workflow xmlns=\"urn:mpfl:1.0\" name=\"w\"><description>&s;</description><process name=\"p\"/></workflow>",
                "<!DOCTYPE workflow SYSTEM \"" + secret.toUri() + "\">\n<workflow xmlns=\"urn:mpfl:1.0\" name=\"w\"/>",
                "<!DOCTYPE workflow [ <!ENTITY % p SYSTEM \"" + secret.toUri() + "\"> %p; ]>\n<workflow/>",
                "<?xml version=\"1.0\"?>\n<workflow xmlns=\"urn:mpfl:1.0\" name=\"w\" xmlns:xi=\"http://www.w3.org/2001/XInclude\">"
                        + "<process name=\"p\"><xi:include href=\"" + secret.toUri() + "\" parse=\"text\"/></process></workflow>")) {
            List<Diagnostic> diagnostics = check(doc);
            assertFalse(diagnostics.isEmpty(), doc);
            for (Diagnostic d : diagnostics) {
                assertFalse(d.message().contains(SECRET), "leaked: " + d);
            }
            if (doc.contains("DOCTYPE")) {
                assertTrue(diagnostics.get(0).message().startsWith("DOCTYPE declarations are not allowed"), diagnostics.toString());
            } else {
                assertTrue(diagnostics.get(0).message().contains("element <include>"), diagnostics.toString());
            }
        }
    }

    @Test
    void oversizedDocumentsAreRefusedUnread() throws IOException {
        Path big = dir.resolve("big.mpfl.xml");
        byte[] content = new byte[(int) DocumentReader.MAX_DOCUMENT_BYTES + 1];
        java.util.Arrays.fill(content, (byte) ' ');
        Files.write(big, content);
        Diagnostics diagnostics = new Diagnostics();
        assertNull(new DocumentReader(diagnostics).read(big, "big.mpfl.xml"));
        assertTrue(diagnostics.sorted().get(0).format().startsWith("big.mpfl.xml:1:1: error: document is larger than 10 MB"));
    }

    @Test
    void emptyAndMissingFiles() throws IOException {
        Path empty = dir.resolve("empty.mpfl.xml");
        Files.write(empty, new byte[0]);
        Diagnostics diagnostics = new Diagnostics();
        assertNull(new DocumentReader(diagnostics).read(empty, "empty.mpfl.xml"));
        assertEquals("empty.mpfl.xml:1:1: error: malformed XML: the document ends before its root element is complete (or is empty)",
                diagnostics.sorted().get(0).format());
        Diagnostics missing = new Diagnostics();
        assertNull(new DocumentReader(missing).read(dir.resolve("nope.xml"), "nope.xml"));
        assertEquals("nope.xml:1:1: error: file not found", missing.sorted().get(0).format());
    }

    @Test
    void elementsAndAttributesKeepExactPositions() {
        String doc = "<?xml version=\"1.0\"?>\n"
                + "<workflow xmlns=\"urn:mpfl:1.0\"\n"
                + "          name='w'>\n"
                + "\t<process name=\"p\"   ranks = \"n &lt; 3\"/>\n"
                + "</workflow>\n";
        Diagnostics diagnostics = new Diagnostics();
        Element root = new DocumentReader(diagnostics).read(doc.getBytes(StandardCharsets.UTF_8), "d.xml");
        assertNotNull(root, diagnostics.sorted().toString());
        assertEquals("d.xml:2:1", root.location().toString());
        assertEquals("d.xml:3:11", root.attribute("name").location().toString());
        Element process = root.children().get(0);
        assertEquals("d.xml:4:2", process.location().toString());
        Attribute ranks = process.attribute("ranks");
        assertEquals("n < 3", ranks.value());
        assertEquals("d.xml:4:22", ranks.location().toString());
        assertEquals("d.xml:4:31", ranks.positionInValue(0).toString());
        assertEquals("d.xml:4:33", ranks.positionInValue(2).toString(), "&lt; is one character of the value");
        assertEquals("d.xml:4:38", ranks.positionInValue(4).toString());
    }

    @Test
    void byteOrderMarkAndWindowsLineEndingsDoNotShiftPositions() {
        String doc = "\uFEFF<workflow xmlns=\"urn:mpfl:1.0\" name=\"w\">\r\n  <process name=\"p\"/>\r\n</workflow>\r\n";
        Diagnostics diagnostics = new Diagnostics();
        Element root = new DocumentReader(diagnostics).read(doc.getBytes(StandardCharsets.UTF_8), "d.xml");
        assertEquals("d.xml:1:1", root.location().toString(), "the BOM is not a column");
        assertEquals("d.xml:1:32", root.attribute("name").location().toString());
        assertEquals("d.xml:2:3", root.children().get(0).location().toString());
        assertEquals("d.xml:2:12", root.children().get(0).attribute("name").location().toString());
    }

    @Test
    void deepNestingIsRefusedInsteadOfExhaustingTheStack() throws IOException {
        String deepElements = "<workflow xmlns=\"urn:mpfl:1.0\" name=\"w\"><process name=\"p\">"
                + "<sequence>".repeat(5000) + "</sequence>".repeat(5000) + "</process></workflow>";
        List<Diagnostic> diagnostics = check(deepElements);
        assertEquals(1, diagnostics.size(), diagnostics.toString());
        assertTrue(diagnostics.get(0).message().startsWith("elements are nested deeper than 200 levels"));

        String deepExpression = "<workflow xmlns=\"urn:mpfl:1.0\" name=\"w\"><process name=\"p\"><var name=\"x\" type=\"int\" init=\""
                + "(".repeat(4000) + "1" + ")".repeat(4000) + "\"/></process></workflow>";
        diagnostics = check(deepExpression);
        assertEquals(1, diagnostics.size(), diagnostics.toString());
        assertTrue(diagnostics.get(0).message().startsWith("expression nested deeper than 64 levels"));
        assertTrue(check(deepExpression.replace("(".repeat(4000), "(".repeat(60)).replace(")".repeat(4000), ")".repeat(60))).isEmpty());
    }

    @Test
    void hugeExpressionsAreRefusedInsteadOfExhaustingTheStack() throws IOException {
        String chain = String.join("+", java.util.Collections.nCopies(4999, "1"));
        String negations = "-".repeat(9990) + "1";
        String sum = String.join(" + ", java.util.Collections.nCopies(150, "1"));
        String doc = "<workflow xmlns=\"urn:mpfl:1.0\" name=\"w\"><process name=\"p\">"
                + "<var name=\"x\" type=\"int\" init=\"" + chain + "\"/>"
                + "<var name=\"y\" type=\"int\" init=\"" + negations + "\"/>"
                + "<var name=\"z\" type=\"int\" init=\"" + sum + "\"/></process></workflow>";
        List<Diagnostic> diagnostics = check(doc);
        assertEquals(3, diagnostics.size(), diagnostics.toString());
        assertTrue(diagnostics.get(0).message().endsWith("has more than 1000 tokens"), diagnostics.toString());
        assertTrue(diagnostics.get(1).message().endsWith("has more than 1000 tokens"), diagnostics.toString());
        assertTrue(diagnostics.get(2).message().contains("is nested deeper than 100 levels"), diagnostics.toString());
        String fine = String.join(" + ", java.util.Collections.nCopies(90, "1"));
        assertTrue(check(doc.replace(chain, fine).replace(negations, "-1").replace(sum, fine)).isEmpty());
    }
}
