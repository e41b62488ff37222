package org.mpfl.compiler;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Property: whatever a document contains, checking it ends in a result or diagnostics — never an
 * exception — and quickly. Thousands of mutants of the valid fixtures (fixed seed, so failures
 * reproduce): byte flips, character insertions and deletions, swapped and duplicated lines, removed
 * or renamed elements and attributes, expression tokens spliced into attribute values.
 */
class FuzzTest {
    private static final long SEED = 20261121L;
    private static final int MUTANTS = 3000;
    /**
     * "Quickly": a document checks in milliseconds; this catches a blow-up (exponential backtracking, a
     * loop over a huge range), which takes far longer. 10 s holds on a loaded 2-core machine (a GC pause
     * or a stall of the JVM while other builds run must not fail it).
     */
    private static final long MAX_MILLIS_PER_DOCUMENT = 10_000;
    private static final String[] SPLICES = {"<", ">", "&", "&amp;", "\"", "'", "]]>", "<!--", "-->", "&#0;", "&#xFFFF;",
        "</process>", "<process name=\"q\">", "<if test=\"", "(", ")", "[", "]", "[0:", "?", ":", " and ", " not ", "1e999",
        "2147483648", "''", "'\\'", "\\", "len(", "dims(0,0)", "1/0", "--", "\u0000", "\uD800", "é", "\n", "xmlns=\"urn:x\"",
        "<!DOCTYPE x>", "<?pi?>", "<![CDATA[x]]>", "any", "world", "rank", "size('", "first('", ",", ", ,"};
    private static final String[] ELEMENT_NAMES = {"send", "receive", "while", "for", "if", "else", "elseif", "branch",
        "parallel", "var", "param", "process", "workflow", "cartesian", "split", "break", "zzz"};
    private static final String[] ATTRIBUTE_NAMES = {"to", "from", "data", "into", "tag", "comm", "name", "type", "test",
        "value", "ranks", "var", "root", "op", "dims", "periodic", "request", "zz"};

    @Test
    void mutatedDocumentsNeverCrashTheCompiler() throws IOException {
        List<String> seeds = new ArrayList<>();
        try (Stream<Path> files = Files.walk(Paths.get("src/test/resources/fixtures/valid"))) {
            for (Path p : files.filter(f -> f.toString().endsWith(".mpfl.xml")).sorted().toList()) {
                seeds.add(Files.readString(p, StandardCharsets.UTF_8));
            }
        }
        assertTrue(seeds.size() >= 2);
        Random random = new Random(SEED);
        MpflCompiler compiler = new MpflCompiler();
        int withDiagnostics = 0;
        for (int i = 0; i < MUTANTS; i++) {
            String seed = seeds.get(random.nextInt(seeds.size()));
            String mutant = seed;
            int mutations = 1 + random.nextInt(3);
            for (int m = 0; m < mutations; m++) {
                mutant = mutate(mutant, random);
            }
            byte[] bytes = mutant.getBytes(StandardCharsets.UTF_8);
            if (random.nextInt(10) == 0 && bytes.length > 0) {
                bytes[random.nextInt(bytes.length)] = (byte) random.nextInt(256);
            }
            long start = System.nanoTime();
            try {
                MpflCompiler.CheckResult result = compiler.check(bytes, "mutant" + i + ".mpfl.xml", null, Map.of());
                if (!result.diagnostics().isEmpty()) {
                    withDiagnostics++;
                }
            } catch (RuntimeException | StackOverflowError e) {
                fail("mutant " + i + " crashed the compiler: " + e + "\n---\n" + new String(bytes, StandardCharsets.UTF_8), e);
            }
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertTrue(millis < MAX_MILLIS_PER_DOCUMENT, "mutant " + i + " took " + millis + " ms");
        }
        assertTrue(withDiagnostics > MUTANTS / 2, "most mutants are wrong somewhere: " + withDiagnostics);
    }

    static String mutate(String text, Random random) {
        if (text.isEmpty()) {
            return SPLICES[random.nextInt(SPLICES.length)];
        }
        int at = random.nextInt(text.length());
        switch (random.nextInt(9)) {
            case 0 -> {
                return text.substring(0, at) + text.substring(Math.min(text.length(), at + 1 + random.nextInt(8)));
            }
            case 1 -> {
                return text.substring(0, at) + SPLICES[random.nextInt(SPLICES.length)] + text.substring(at);
            }
            case 2 -> {
                return text.substring(0, at) + (char) (32 + random.nextInt(95)) + text.substring(at);
            }
            case 3 -> {
                String[] lines = text.split("\n", -1);
                int a = random.nextInt(lines.length);
                int b = random.nextInt(lines.length);
                String t = lines[a];
                lines[a] = lines[b];
                lines[b] = t;
                return String.join("\n", lines);
            }
            case 4 -> {
                String[] lines = text.split("\n", -1);
                int a = random.nextInt(lines.length);
                List<String> list = new ArrayList<>(List.of(lines));
                if (random.nextBoolean()) {
                    list.add(a, lines[a]);
                } else {
                    list.remove(a);
                }
                return String.join("\n", list);
            }
            case 5 -> {
                String from = ELEMENT_NAMES[random.nextInt(ELEMENT_NAMES.length)];
                String to = ELEMENT_NAMES[random.nextInt(ELEMENT_NAMES.length)];
                return text.replaceFirst("<" + from + "([ />])", "<" + to + "$1");
            }
            case 6 -> {
                String from = ATTRIBUTE_NAMES[random.nextInt(ATTRIBUTE_NAMES.length)];
                String to = ATTRIBUTE_NAMES[random.nextInt(ATTRIBUTE_NAMES.length)];
                return text.replaceFirst(" " + from + "=", " " + to + "=");
            }
            case 7 -> {
                // replace one attribute value with a spliced expression
                int quote = text.indexOf("=\"", at);
                if (quote < 0) {
                    return text;
                }
                int end = text.indexOf('"', quote + 2);
                if (end < 0) {
                    return text;
                }
                String value = SPLICES[random.nextInt(SPLICES.length)] + text.substring(quote + 2, end)
                        + SPLICES[random.nextInt(SPLICES.length)];
                return text.substring(0, quote + 2) + value.replace("\"", "&quot;").replace("<", "&lt;") + text.substring(end);
            }
            default -> {
                // drop a whole element line
                int lineStart = text.lastIndexOf('\n', at) + 1;
                int lineEnd = text.indexOf('\n', at);
                return text.substring(0, lineStart) + (lineEnd < 0 ? "" : text.substring(lineEnd + 1));
            }
        }
    }
}
