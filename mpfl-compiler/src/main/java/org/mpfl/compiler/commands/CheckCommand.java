package org.mpfl.compiler.commands;

import java.io.PrintStream;
import java.nio.file.Files;
import java.util.List;
import org.mpfl.compiler.MpflCompiler;
import org.mpfl.ir.cli.ArgumentSpec;
import org.mpfl.ir.cli.CliCommand;
import org.mpfl.ir.cli.UsageException;
import org.mpfl.ir.diag.Diagnostics;

/**
 * {@code mpflc check FILE [--param k=v]… [--python PATH]}: every static check (and the Python kernels'
 * functions, parsed in the interpreter); diagnostics GCC-style on stderr,
 * sorted by position; exit 0 if there is no error (warnings allowed), 1 if there is one, 2 for usage.
 */
public final class CheckCommand implements CliCommand {
    static final String USAGE = "FILE [--param NAME=VALUE]...";
    private static final ArgumentSpec SPEC = DocumentArguments.spec("check", "Every static check of an MPFL document;"
            + " diagnostics on stderr; exit 0 without errors (warnings allowed), 1 with errors.")
            .value("--python", "PATH", "python3", "the interpreter that parses <compute python> modules to find their functions"
                    + " (the user's code is parsed, never imported)");

    @Override
    public String name() {
        return "check";
    }

    @Override
    public String summary() {
        return "check an MPFL document: " + USAGE;
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws UsageException {
        org.mpfl.ir.cli.Arguments given = SPEC.parse(args);
        DocumentArguments arguments = DocumentArguments.of(given);
        if (!Files.isRegularFile(arguments.file())) {
            err.println("mpflc check: " + missing(arguments));
            return 1;
        }
        MpflCompiler compiler = new MpflCompiler();
        MpflCompiler.CheckResult result = compiler.check(arguments.file(), arguments.displayName(), arguments.params());
        compiler.checkPythonFunctions(result, arguments.file().toAbsolutePath().getParent(), given.value("--python"));
        report(result.diagnostics(), err);
        return result.diagnostics().hasErrors() ? 1 : 0;
    }

    static String missing(DocumentArguments arguments) {
        return arguments.displayName() + ": " + (Files.exists(arguments.file()) ? "not a regular file" : "no such file");
    }

    /** Prints the diagnostics and a count line if there are any. */
    static void report(Diagnostics diagnostics, PrintStream err) {
        diagnostics.printTo(err);
        int errors = diagnostics.errorCount();
        int warnings = diagnostics.sorted().size() - errors;
        if (errors + warnings > 0) {
            err.println(plural(errors, "error") + ", " + plural(warnings, "warning"));
        }
    }

    private static String plural(int n, String word) {
        return n + " " + word + (n == 1 ? "" : "s");
    }
}
