package org.mpfl.compiler.check;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.IrProcess;
import org.mpfl.ir.IrWalk;
import org.mpfl.ir.diag.Diagnostics;
import org.mpfl.ir.spelling.Suggestions;

/**
 * Whether each {@code <compute class>} is a class of the workflow's jars, found by the jars' entry names
 * (no class is loaded, no user code runs). A class in none of them draws a warning with the nearest
 * name, since a misspelt class would otherwise only fail the ranks at run time; a warning, not an
 * error, because a host's own class path may provide activities (the benchmarks' workflows name no
 * jar). A workflow without jars, or with one that is missing or unreadable (already an error, or it
 * could hold the class), is not judged.
 */
final class ActivityClassCheck {
    private static final String VERSIONED = "META-INF/versions/";

    private final Diagnostics diagnostics;
    private final Path documentDirectory;
    private final List<String> jars;

    ActivityClassCheck(Diagnostics diagnostics, Path documentDirectory, List<String> libraries) {
        this.diagnostics = diagnostics;
        this.documentDirectory = documentDirectory;
        this.jars = libraries.stream().filter(l -> l.endsWith(".jar")).toList();
    }

    void check(List<IrProcess> processes) {
        if (documentDirectory == null || jars.isEmpty()) {
            return;
        }
        Set<String> classes = classes();
        if (classes == null) {
            return;
        }
        for (IrProcess p : processes) {
            IrWalk.forEachActivity(p.body(), a -> {
                if (a instanceof IrActivity.Compute c && c.className() != null && !classes.contains(c.className())) {
                    diagnostics.warning(c.at(), "class " + c.className() + " is in none of the workflow's jars ("
                            + String.join(", ", jars) + ")" + nearest(c.className(), classes)
                            + ": only the hosts' class path could provide it");
                }
            });
        }
    }

    /** The binary names of the jars' classes, or null when a jar cannot be read. */
    private Set<String> classes() {
        Set<String> classes = new TreeSet<>();
        for (String jar : jars) {
            Path path = documentDirectory.resolve(jar);
            if (!Files.isRegularFile(path)) {
                return null;
            }
            try (ZipFile zip = new ZipFile(path.toFile())) {
                Enumeration<? extends ZipEntry> entries = zip.entries();
                while (entries.hasMoreElements()) {
                    String name = entries.nextElement().getName();
                    if (name.startsWith(VERSIONED)) { // a multi-release jar's class for a later Java: META-INF/versions/N/…
                        int slash = name.indexOf('/', VERSIONED.length());
                        name = slash < 0 ? "" : name.substring(slash + 1);
                    }
                    if (name.endsWith(".class") && !name.endsWith("module-info.class") && !name.endsWith("package-info.class")) {
                        classes.add(name.substring(0, name.length() - ".class".length()).replace('/', '.'));
                    }
                }
            } catch (IOException e) {
                return null;
            }
        }
        return classes;
    }

    /** A file name written for the class, the one class of that simple name, or the nearest spelling. */
    private static String nearest(String written, Set<String> classes) {
        for (String suffix : List.of(".java", ".class")) {
            String stripped = written.endsWith(suffix) ? written.substring(0, written.length() - suffix.length()) : null;
            if (stripped != null && classes.contains(stripped)) {
                return " (did you mean '" + stripped + "'?)";
            }
        }
        String simple = simpleName(written);
        List<String> sameSimpleName = new ArrayList<>();
        for (String c : classes) {
            if (simpleName(c).equals(simple)) {
                sameSimpleName.add(c);
            }
        }
        if (sameSimpleName.size() == 1) {
            return " (did you mean '" + sameSimpleName.get(0) + "'?)";
        }
        return Suggestions.didYouMean(written, classes);
    }

    private static String simpleName(String className) {
        return className.substring(className.lastIndexOf('.') + 1).toLowerCase(Locale.ROOT);
    }
}
