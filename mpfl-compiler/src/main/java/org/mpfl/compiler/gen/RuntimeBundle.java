package org.mpfl.compiler.gen;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.mpfl.ir.plan.RuntimeBinding;

/**
 * The MPFL runtime jars that {@code mpflc compile --bundle-runtime} puts under an archive's
 * {@code lib/} so that it runs in a stock Axis2 container: the class-path roots (jars or class
 * directories) of {@link RuntimeBinding#RUNTIME_CLASSES}, found through the class loader of the
 * running compiler — the class path {@code bin/mpflc} builds from the installation. A class directory
 * (a build tree, e.g. in tests) is packed into a jar named after its module.
 */
public final class RuntimeBundle {
    /** 2000-01-01T00:00:00Z, as the other archive entries. */
    private static final long FIXED_TIME = 946_684_800_000L;

    private final Map<String, Path> jars;

    private RuntimeBundle(Map<String, Path> jars) {
        this.jars = jars;
    }

    /** The runtime as the compiler's own class loader sees it. */
    public static RuntimeBundle fromClassPath() throws IOException {
        ClassLoader loader = RuntimeBundle.class.getClassLoader();
        Map<String, Path> jars = new LinkedHashMap<>();
        for (String className : RuntimeBinding.RUNTIME_CLASSES) {
            String resource = className.replace('.', '/') + ".class";
            URL url = loader.getResource(resource);
            if (url == null) {
                throw new IOException("cannot bundle the runtime: class " + className + " is not on the class path of mpflc"
                        + " (run it through bin/mpflc of a built installation)");
            }
            Path root = root(url, resource);
            String name = Files.isDirectory(root) ? moduleName(root) + ".jar" : root.getFileName().toString();
            jars.putIfAbsent(name, root);
        }
        return new RuntimeBundle(jars);
    }

    /** Archive entry name ({@code lib/NAME.jar}) → jar file or class directory. */
    public Map<String, Path> jars() {
        return Map.copyOf(jars);
    }

    /** The archive entries: {@code lib/NAME.jar} → content. */
    Map<String, byte[]> entries() throws IOException {
        Map<String, byte[]> out = new LinkedHashMap<>();
        for (Map.Entry<String, Path> e : jars.entrySet()) {
            Path p = e.getValue();
            out.put("lib/" + e.getKey(), Files.isDirectory(p) ? jarOf(p) : Files.readAllBytes(p));
        }
        return out;
    }

    private static Path root(URL url, String resource) throws IOException {
        try {
            String text = url.toString();
            if (text.startsWith("jar:file:")) {
                return Path.of(new URL(text.substring(4, text.indexOf("!/"))).toURI());
            }
            if (text.startsWith("file:")) {
                Path classFile = Path.of(url.toURI());
                Path root = classFile;
                for (int i = 0; i < resource.split("/").length; i++) {
                    root = root.getParent();
                }
                return root;
            }
        } catch (URISyntaxException | RuntimeException e) {
            throw new IOException("cannot bundle the runtime: unusable class location " + url, e);
        }
        throw new IOException("cannot bundle the runtime: " + resource + " is not in a jar or directory (" + url + ")");
    }

    /** {@code …/service-runtime/target/classes} → {@code service-runtime}. */
    private static String moduleName(Path classes) {
        Path p = classes;
        if (p.getFileName() != null && p.getFileName().toString().equals("classes") && p.getParent() != null
                && p.getParent().getFileName() != null && p.getParent().getFileName().toString().equals("target")
                && p.getParent().getParent() != null) {
            p = p.getParent().getParent();
        }
        return p.getFileName() == null ? "classes" : p.getFileName().toString();
    }

    /** A class directory as a reproducible jar (sorted entries, fixed time). */
    private static byte[] jarOf(Path dir) throws IOException {
        List<Path> files = new ArrayList<>();
        try (Stream<Path> s = Files.walk(dir)) {
            s.filter(Files::isRegularFile).sorted(Comparator.comparing(p -> dir.relativize(p).toString())).forEach(files::add);
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZipOutputStream zip = new ZipOutputStream(bytes)) {
            for (Path f : files) {
                ZipEntry entry = new ZipEntry(dir.relativize(f).toString().replace('\\', '/'));
                entry.setTime(FIXED_TIME);
                zip.putNextEntry(entry);
                zip.write(Files.readAllBytes(f));
                zip.closeEntry();
            }
        }
        return bytes.toByteArray();
    }
}
