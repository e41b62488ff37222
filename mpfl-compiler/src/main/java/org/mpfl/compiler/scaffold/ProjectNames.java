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

    static ProjectNames of(String name, boolean given) throws UsageException {
        if (!WORKFLOW_NAME.matcher(name).matches()) {
            throw NewCommand.badName(name, given);
        }
        String module = name.replace('-', '_').toLowerCase(Locale.ROOT);
        String javaPackage = "org.example." + module;
        if (!SourceVersion.isName(javaPackage)) {
            // a Java keyword (a project called 'int'): the package could not be declared
            throw NewCommand.badName(name, given);
        }
        return new ProjectNames(name, module, javaPackage);
    }
}
