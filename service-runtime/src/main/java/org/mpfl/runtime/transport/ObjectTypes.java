package org.mpfl.runtime.transport;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Enumeration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The allow-list of a rank's {@code object} values: which classes an {@code object} payload may name
 * (docs/wire-format.md, "object values"). The JDK value kinds (boxed primitives, strings, primitive
 * arrays, lists, sets and maps of object values) are always allowed and are not classes on this list;
 * it holds the workflow's own value classes:
 *
 * <ul>
 *   <li>every class in the package of one of the workflow's activity classes ({@code <compute
 *       class="…">} of any of its processes): a value class next to the activities that make it needs
 *       no configuration;</li>
 *   <li>classes and packages listed in {@value #LIST_RESOURCE} resources of the workflow's libraries
 *       (one class name, or a package as {@code org.example.model.*}, per line; {@code #} comments),
 *       for value classes kept elsewhere.</li>
 * </ul>
 *
 * <p>Nothing in {@code java.*}, {@code javax.*}, {@code jdk.*}, {@code sun.*} or {@code com.sun.*} is
 * ever on it: JDK types travel only as the fixed value kinds, so the JDK's gadget classes (a
 * {@code PriorityQueue} with a comparator, proxies, templates…) cannot be named. A name is checked as
 * a string before any class is loaded, so a refused name is never loaded, initialised or instantiated.
 */
public final class ObjectTypes {
    /** The resource in a workflow library that lists further value classes or packages. */
    public static final String LIST_RESOURCE = "META-INF/mpfl/object-types";

    /** Implemented by rank programs that know their workflow's value classes (the interpreter). */
    public interface Declaring {
        /** The allow-list of this program's {@code object} values. */
        ObjectTypes objectTypes();
    }

    private static final List<String> JDK_PREFIXES = List.of("java.", "javax.", "jdk.", "sun.", "com.sun.");
    private static final ObjectTypes NONE = new ObjectTypes(Set.of(), Set.of(), ObjectTypes.class.getClassLoader());

    private final Set<String> packages;
    private final Set<String> classes;
    private final ClassLoader loader;

    private ObjectTypes(Set<String> packages, Set<String> classes, ClassLoader loader) {
        this.packages = Set.copyOf(packages);
        this.classes = Set.copyOf(classes);
        this.loader = loader;
    }

    /** Only the JDK value kinds: what a rank accepts until its program says more. */
    public static ObjectTypes none() {
        return NONE;
    }

    /**
     * The allow-list of a workflow: the packages of its activity classes and what its libraries list in
     * {@value #LIST_RESOURCE}; classes are loaded (without initialising) from {@code libraries}.
     *
     * @throws IllegalArgumentException if a list names a JDK class or package, or cannot be read
     */
    public static ObjectTypes forWorkflow(ClassLoader libraries, Collection<String> activityClassNames) {
        Set<String> packages = new TreeSet<>();
        Set<String> classes = new TreeSet<>();
        for (String name : activityClassNames) {
            String pkg = packageOf(name);
            if (!pkg.isEmpty() && !isJdk(name)) {
                packages.add(pkg);
            }
        }
        readLists(libraries, packages, classes);
        return new ObjectTypes(packages, classes, libraries);
    }

    /**
     * The allow-list of a hand-written program: a {@link Declaring} program's own, else the package of
     * the program's class (its value classes live next to it), resolved with the program's class loader.
     */
    public static ObjectTypes forProgram(Object program) {
        if (program instanceof Declaring d) {
            return d.objectTypes();
        }
        Class<?> c = program.getClass();
        return of(c.getClassLoader(), Set.of(c.getPackageName()), Set.of());
    }

    /** Exactly these classes (tests, embedding), resolved with the first one's class loader. */
    public static ObjectTypes of(Class<?>... allowed) {
        Set<String> names = new TreeSet<>();
        ClassLoader loader = ObjectTypes.class.getClassLoader();
        for (Class<?> c : allowed) {
            names.add(c.getName());
            loader = c.getClassLoader();
        }
        return of(loader, Set.of(), names);
    }

    private static ObjectTypes of(ClassLoader loader, Set<String> packages, Set<String> classes) {
        for (String name : classes) {
            if (isJdk(name)) {
                throw new IllegalArgumentException("JDK class " + name + " cannot be an allowed object type");
            }
        }
        Set<String> ps = new TreeSet<>(packages);
        ps.removeIf(p -> p.isEmpty() || isJdk(p + "."));
        return new ObjectTypes(ps, classes, loader == null ? ClassLoader.getSystemClassLoader() : loader);
    }

    /** Whether a class of this name may be an {@code object} value here (decided on the name alone). */
    public boolean allows(String className) {
        if (className == null || className.isEmpty() || isJdk(className) || className.startsWith("[")) {
            return false;
        }
        return classes.contains(className) || packages.contains(packageOf(className));
    }

    /**
     * The class an {@code object} payload names, loaded without initialising it.
     *
     * @throws ObjectTypeRefusedException if the name is not allowed (the class is then not loaded at
     *         all), or the class it loads is not a concrete named class of an allowed package
     */
    public Class<?> resolve(String className) {
        if (!allows(className)) {
            throw refused(className, "it is not an allowed object type");
        }
        Class<?> c;
        try {
            c = Class.forName(className, false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            throw refused(className, "it is not in the workflow's libraries");
        }
        if (!c.getName().equals(className) || !allows(c.getName()) || !isValueClass(c)) {
            throw refused(className, "it is not a concrete, named value class");
        }
        return c;
    }

    /**
     * Checks a class about to be sent: the sender applies the same list as its receivers, so a value that
     * would be refused fails at the send, with the sender's location, instead of at the receiver.
     */
    public void checkSendable(Class<?> c) {
        if (!allows(c.getName()) || !isValueClass(c)) {
            throw new IllegalArgumentException("cannot send a value of " + c.getName() + " as an object: "
                    + (isValueClass(c) ? "it is not an allowed object type; " + describe()
                    : "only named, concrete classes (no anonymous, local, inner or abstract classes) can be sent"));
        }
    }

    private ObjectTypeRefusedException refused(String className, String why) {
        return new ObjectTypeRefusedException(className, "object payload names class " + className + ", refused: "
                + why + " (nothing was loaded or created); " + describe());
    }

    /** What is allowed, for error messages. */
    public String describe() {
        StringBuilder s = new StringBuilder("allowed are the JDK value kinds");
        if (!packages.isEmpty()) {
            s.append(", classes in package").append(packages.size() == 1 ? " " : "s ").append(String.join(", ", packages));
        }
        if (!classes.isEmpty()) {
            s.append(", ").append(String.join(", ", classes));
        }
        if (packages.isEmpty() && classes.isEmpty()) {
            s.append(" only");
        }
        return s.append(" (value classes belong in an activity's package or in ").append(LIST_RESOURCE).append(')')
                .toString();
    }

    /** The packages whose classes are allowed. */
    public Set<String> packages() {
        return packages;
    }

    /** The classes allowed by name. */
    public Set<String> classes() {
        return classes;
    }

    @Override
    public String toString() {
        return "ObjectTypes" + packages + classes;
    }

    private static boolean isValueClass(Class<?> c) {
        int m = c.getModifiers();
        boolean concrete = c.isEnum() || !Modifier.isAbstract(m) && !c.isInterface();
        boolean named = !c.isAnonymousClass() && !c.isLocalClass() && !c.isSynthetic() && !c.isHidden()
                && !c.isArray() && !c.isPrimitive() && (c.getEnclosingClass() == null || Modifier.isStatic(m));
        return concrete && named;
    }

    private static boolean isJdk(String name) {
        for (String prefix : JDK_PREFIXES) {
            if (name.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    private static String packageOf(String className) {
        int dot = className.lastIndexOf('.');
        return dot < 0 ? "" : className.substring(0, dot);
    }

    private static void readLists(ClassLoader libraries, Set<String> packages, Set<String> classes) {
        if (libraries == null) {
            return;
        }
        Enumeration<URL> lists;
        try {
            lists = libraries.getResources(LIST_RESOURCE);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + LIST_RESOURCE + ": " + e.getMessage(), e);
        }
        while (lists.hasMoreElements()) {
            URL url = lists.nextElement();
            try (InputStream in = url.openStream();
                 BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                String line;
                int number = 0;
                while ((line = r.readLine()) != null) {
                    number++;
                    int hash = line.indexOf('#');
                    String entry = (hash < 0 ? line : line.substring(0, hash)).strip();
                    if (entry.isEmpty()) {
                        continue;
                    }
                    String name = entry.endsWith(".*") ? entry.substring(0, entry.length() - 2) : entry;
                    if (isJdk(name + ".") || !name.matches("[\\p{L}_$][\\p{L}\\p{N}_$]*(\\.[\\p{L}_$][\\p{L}\\p{N}_$]*)*")) {
                        throw new IllegalArgumentException(url + ":" + number + ": '" + entry + "' cannot be an object type"
                                + " (a class name or package.* outside java, javax, jdk, sun and com.sun)");
                    }
                    (entry.endsWith(".*") ? packages : classes).add(name);
                }
            } catch (IOException e) {
                throw new IllegalArgumentException("cannot read " + url + ": " + e.getMessage(), e);
            }
        }
    }
}
