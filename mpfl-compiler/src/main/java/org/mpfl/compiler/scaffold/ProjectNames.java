package org.mpfl.compiler.scaffold;

import java.util.Locale;
import java.util.regex.Pattern;
import javax.lang.model.SourceVersion;
import org.mpfl.ir.cli.UsageException;

/**
 * The names one project name gives: the workflow's (and the Maven artifact's and jar's), the Python module's
 * and the Java package's.
 *
 * @param workflow    as in {@code <workflow name=…>}: letters, digits, {@code -}, {@code _}, starting with a letter
 * @param module      the Python module (file {@code kernels/MODULE.py}) and the last part of the Java package
 * @param javaPackage the kernel class's package
 */
record ProjectNames(String workflow, String module, String javaPackage) {
    /** The language reference's name of a workflow (the schema's {@code m:name}). */
    private static final Pattern WORKFLOW_NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_-]*");

    /** Python 3's keywords ({@code keyword.kwlist}) in lower case, as a module name is. */
    private static final java.util.Set<String> PYTHON_KEYWORDS = java.util.Set.of("and", "as", "assert", "async", "await",
            "break", "class", "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if",
            "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield");

    static ProjectNames of(String name, boolean given) throws UsageException {
        if (!WORKFLOW_NAME.matcher(name).matches()) {
            throw NewCommand.badName(name, given);
        }
        String module = name.replace('-', '_').toLowerCase(Locale.ROOT);
        String javaPackage = "org.example." + module;
        if (!SourceVersion.isName(javaPackage)) {
            // a Java keyword (a project called 'int'): the package could not be declared
            ProjectNames instead = of(name + "-kernels", true);
            throw new UsageException("'" + name + "'" + (given ? "" : " (the directory's name)") + " would name the kernel's"
                    + " package " + javaPackage + ", but " + module + " is a Java keyword; give another name, e.g. --name "
                    + instead.workflow() + " (package " + instead.javaPackage() + ")");
        }
        return new ProjectNames(name, module, javaPackage);
    }

    /**
     * Refuses a Python project whose module is a Python keyword: the project's own test ({@code import MODULE})
     * would be a syntax error. Java's keywords are refused for both templates, by {@link #of}.
     */
    void requireImportableModule(boolean given) throws UsageException {
        if (PYTHON_KEYWORDS.contains(module)) {
            ProjectNames instead = of(workflow + "-kernels", true);
            throw new UsageException("'" + workflow + "'" + (given ? "" : " (the directory's name)") + " would name the kernel"
                    + " module kernels/" + module + ".py, but " + module + " is a Python keyword: 'import " + module + "' is a"
                    + " syntax error; give another name, e.g. --name " + instead.workflow() + " (module " + instead.module() + ")");
        }
    }
}
