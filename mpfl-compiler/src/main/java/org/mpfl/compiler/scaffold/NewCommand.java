package org.mpfl.compiler.scaffold;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import org.mpfl.ir.cli.ArgumentSpec;
import org.mpfl.ir.cli.Arguments;
import org.mpfl.ir.cli.CliCommand;
import org.mpfl.ir.cli.CliSettings;
import org.mpfl.ir.cli.UsageException;

/**
 * {@code mpflc new java|python DIR [--name NAME]}: writes a {@link ProjectTemplate} into a new or empty
 * directory (never over a file) and prints what it wrote and the two commands that build and run it.
 */
public final class NewCommand implements CliCommand {
    private static final ArgumentSpec SPEC = ArgumentSpec.of("new", "A project for your own kernel: one kernel, one MPFL"
            + " document calling it, a test and a README with the two commands that build and run it (mpflc run … --local).")
            .positional("LANGUAGE", "java: a Maven project against org.mpfl:mpfl-api, building the library jar the document"
                    + " names; python: kernels/NAME.py called through <compute python=\"MODULE:FUNCTION\">, tested with"
                    + " python3 -m unittest")
            .positional("DIR", "the project's directory: new or empty (nothing is ever overwritten)")
            .value("--name", "NAME", "the workflow's name, also the jar's and the Python module's (letters, digits, - and _;"
                    + " default: DIR's last part)")
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

    /** Thrown for a project name that a workflow, a jar or a module cannot carry. */
    static UsageException badName(String name, boolean given) {
        return new UsageException("'" + name + "' cannot name a workflow" + (given ? "" : " (it is the directory's name)")
                + ": use letters, digits, '-' and '_', starting with a letter" + (given ? "" : ", or give --name NAME"));
    }
}
