package org.mpfl.engine.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import javax.tools.ToolProvider;

/**
 * The activity library of the test document {@code mpfl/everything.mpfl.xml} ({@code lib/activities.jar}
 * next to it), compiled when a test needs it so that the classes are on no class path: only the
 * generated service archive brings them to the hosts.
 */
public final class TestActivities {
    private TestActivities() {
    }

    /** Writes gen.Twice (y = 2x, input named by the compute) and gen.Decide (receiveFirst = true) into {@code jar}. */
    public static void jar(Path jar) throws IOException {
        Path src = Files.createTempDirectory(jar.toAbsolutePath().getParent(), "src");
        Files.createDirectories(src.resolve("gen"));
        Files.writeString(src.resolve("gen/Twice.java"), """
                package gen;
                public class Twice implements org.mpfl.runtime.api.Activity {
                    public java.util.Map<String, Object> execute(java.util.Map<String, Object> in,
                            org.mpfl.runtime.api.ActivityContext ctx) {
                        int v = (Integer) in.values().iterator().next();
                        return java.util.Map.of("y", 2 * v, "twice", 2 * v);
                    }
                }
                """);
        Files.writeString(src.resolve("gen/Decide.java"), """
                package gen;
                public class Decide implements org.mpfl.runtime.api.Activity {
                    public java.util.Map<String, Object> execute(java.util.Map<String, Object> in,
                            org.mpfl.runtime.api.ActivityContext ctx) {
                        return java.util.Map.of("receiveFirst", true);
                    }
                }
                """);
        compileInto(jar, src, List.of("gen/Twice", "gen/Decide"));
    }

    /**
     * Writes a jar of activity classes compiled from sources (class name with slashes → Java source),
     * against the test class path.
     */
    public static void jar(Path jar, java.util.Map<String, String> sources) throws IOException {
        Path src = Files.createTempDirectory(jar.toAbsolutePath().getParent(), "src");
        for (var s : sources.entrySet()) {
            Path file = src.resolve(s.getKey() + ".java");
            Files.createDirectories(file.getParent());
            Files.writeString(file, s.getValue());
        }
        compileInto(jar, src, List.copyOf(sources.keySet()));
    }

    /**
     * Writes a jar of activity classes that are already compiled on the test class path (such as
     * {@code org.mpfl.engine.console.activities.Pause}): the hosts still get them only from the
     * generated service archive, since they run in processes of their own.
     */
    public static void jar(Path jar, Class<?>... classes) throws IOException {
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file)) {
            for (Class<?> c : classes) {
                String entry = c.getName().replace('.', '/') + ".class";
                try (InputStream in = c.getClassLoader().getResourceAsStream(entry)) {
                    out.putNextEntry(new JarEntry(entry));
                    in.transferTo(out);
                    out.closeEntry();
                }
            }
        }
    }

    private static void compileInto(Path jar, Path src, List<String> classes) throws IOException {
        List<String> args = new java.util.ArrayList<>(List.of("-classpath", System.getProperty("java.class.path"), "-d", src.toString()));
        classes.forEach(c -> args.add(src.resolve(c + ".java").toString()));
        int rc = ToolProvider.getSystemJavaCompiler().run(null, null, null, args.toArray(String[]::new));
        assertEquals(0, rc, "javac");
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out)) {
            for (String c : classes) {
                j.putNextEntry(new JarEntry(c + ".class"));
                j.write(Files.readAllBytes(src.resolve(c + ".class")));
                j.closeEntry();
            }
        }
    }
}
