package org.mpfl.compiler.diag;

import org.mpfl.ir.diag.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class DiagnosticsTest {
    @Test
    void collectsEverythingOnceAndPrintsSortedWithNotes() {
        Diagnostics d = new Diagnostics();
        d.warning(new SourceLocation("b.xml", 1, 1), "later file");
        d.error(new SourceLocation("a.xml", 10, 2), "second");
        d.error(new SourceLocation("a.xml", 3, 7), "first", List.of(new Diagnostic.Note(new SourceLocation("a.xml", 9, 9), "involved")));
        d.error(new SourceLocation("a.xml", 10, 2), "second");
        assertEquals(3, d.sorted().size(), "identical diagnostics are kept once");
        assertEquals(2, d.errorCount());
        assertTrue(d.hasErrors());
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        d.printTo(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        assertEquals(List.of("a.xml:3:7: error: first", "a.xml:9:9: note: involved", "a.xml:10:2: error: second",
                "b.xml:1:1: warning: later file"), bytes.toString(StandardCharsets.UTF_8).lines().toList());
    }

    @Test
    void locationsRoundTripThroughTheirTextForm() {
        SourceLocation at = new SourceLocation("C:/dir/w.mpfl.xml", 12, 5);
        assertEquals("C:/dir/w.mpfl.xml:12:5", at.toString());
        assertEquals(at, SourceLocation.parse(at.toString()));
    }
}
