package org.mpfl.compiler.scaffold;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.mpfl.ir.cli.ArgumentSpec;
import org.mpfl.ir.cli.Arguments;
import org.mpfl.ir.cli.CliCommand;
import org.mpfl.ir.cli.CliSettings;
import org.mpfl.ir.cli.UsageException;
import org.mpfl.protocol.kernel.PythonWorker;

/**
 * {@code mpflc new java|python DIR [--name NAME]}: writes a {@link ProjectTemplate} into a new or empty
 * directory (never over a file) and prints what it wrote and the two commands that build and run it. A Python
 * project is refused a name whose module the kernel worker imports itself (it could never be loaded).
 */
public final class NewCommand implements CliCommand {
    /** The interpreter the Python project's README runs its tests with, and whose worker's module names it must avoid. */
    private static final String PYTHON = "python3";
    private static final ArgumentSpec SPEC = ArgumentSpec.of("new", "A project for your own kernel: one kernel, one MPFL"
            + " document calling it, a test and a README with the two commands that build and run it (mpflc run … --local).")
            .positional("LANGUAGE", "java: a Maven project against org.mpfl:mpfl-api, building the library jar the document"
                    + " names; python: kernels/NAME.py called through <compute python=\"MODULE:FUNCTION\">, tested with"
                    + " python3 -m unittest")
            .positional("DIR", "the project's directory: new or empty (nothing is ever overwritten)")
            .value("--name", "NAME", "the workflow's name, also the jar's and the Python module's (letters, digits, - and _;"
                    + " default: DIR's last part); a Python project's module cannot be one the kernel worker imports"
                    + " itself (random, json, time, …: python3 " + PythonWorker.NAME + " " + PythonWorker.TAKEN_NAMES + ")")
            .note("The Java project builds offline against the mpfl-api that MPFL's own build installed into the local"
                    + " Maven repository (docs/tutorial.md, \"Your own kernels\").");

    @Override
    public String name() {
        return "new";
    }

    @Override
    public String summary() {
        return "java|python DIR [--name NAME]  a project for your own kernel: kernel, document, test, README";
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws Exception {
        Arguments a = SPEC.parse(args);
        ProjectTemplate template = ProjectTemplate.of(a.positional("LANGUAGE"));
        Path dir = Path.of(a.positional("DIR")).toAbsolutePath().normalize();
        ProjectNames names = ProjectNames.of(a.value("--name", dir.getFileName() == null ? "" : dir.getFileName().toString()),
                a.has("--name"));
        String mpflc = CliSettings.HOME.get() == null ? "mpflc" : Path.of(CliSettings.HOME.get(), "bin", "mpflc").toString();
        ProjectTemplate.requireNewOrEmpty(dir); // the directory's refusals first: they need no interpreter
        if (template == ProjectTemplate.PYTHON) {
            names.requireImportableModule(a.has("--name"));
            requireLoadableModule(names, a.has("--name"), PYTHON, err);
        }
        List<Path> written = template.writeInto(dir, names, mpflc);
        out.println("mpflc new: created a " + template.language() + " project '" + names.workflow() + "' in " + dir + ":");
        written.forEach(p -> out.println("  " + dir.relativize(p)));
        out.println("Build and run it (" + dir.resolve("README.md") + "):");
        out.println("  cd " + dir);
        template.commands(names, mpflc).forEach(c -> out.println("  " + c));
        return 0;
    }

    /** The usage text (tests). */
    static String usage() {
        return SPEC.usage();
    }

    /**
     * Refuses a Python project whose module is one the kernel worker imports before the workflow's libraries
     * (Python's own or an installed one): {@code mpflc check} and every run would refuse the project, so it is not
     * written. The names are the worker's own answer in {@code python} ({@link PythonWorker#takenNames}), the one
     * {@code mpflc check} asks. When {@code python} cannot answer, the name is not checked: one line on {@code err}
     * says so, and the project is written.
     */
    static void requireLoadableModule(ProjectNames names, boolean given, String python, PrintStream err)
            throws UsageException {
        Set<String> taken;
        try {
            taken = PythonWorker.takenNames(python);
        } catch (IOException e) {
            err.println("mpflc new: module name " + names.module() + " not checked against those the kernel worker imports"
                    + " itself: " + e.getMessage());
            return;
        }
        if (taken.contains(names.module())) {
            ProjectNames instead = ProjectNames.of(names.workflow() + "-kernels", true);
            throw new UsageException("'" + names.workflow() + "'" + (given ? "" : " (the directory's name)")
                    + " would name the kernel module kernels/" + names.module() + ".py, but " + names.module() + " is Python's"
                    + " own or an installed module that the kernel worker imports first (" + python + "), so that name would"
                    + " always answer with it and the kernel would never be loaded: give another name, e.g. --name "
                    + instead.workflow() + " (module " + instead.module() + ")");
        }
    }

    /** Thrown for a project name that a workflow, a jar or a module cannot carry. */
    static UsageException badName(String name, boolean given) {
        return new UsageException("'" + name + "' cannot name a workflow" + (given ? "" : " (it is the directory's name)")
                + ": use letters, digits, '-' and '_', starting with a letter" + (given ? "" : ", or give --name NAME"));
    }
}
