package org.mpfl.compiler.commands;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.mpfl.compiler.MpflCompiler;
import org.mpfl.ir.cli.ArgumentSpec;
import org.mpfl.ir.cli.Arguments;
import org.mpfl.ir.cli.CliCommand;
import org.mpfl.ir.cli.FileProblem;
import org.mpfl.ir.cli.UsageException;
import org.mpfl.compiler.gen.BuildWriter;
import org.mpfl.compiler.gen.RuntimeBundle;

/**
 * {@code mpflc compile FILE [-o DIR] [--param k=v]… [--bundle-runtime]}: check, then write
 * {@code plan.json} and one {@code .aar} per process into DIR (default: {@code <stem>.build} next to the
 * document). Nothing is written when the document has errors. Prints the written files on stdout.
 * {@code --bundle-runtime} puts the MPFL runtime jars (about 3.5 MB) into every archive's {@code lib/}
 * so that it deploys into a stock Axis2 container; without it the archives stay small and need an MPFL
 * service host (or the runtime on the container's class path).
 */
public final class CompileCommand implements CliCommand {
    private static final ArgumentSpec SPEC = DocumentArguments.spec("compile", "Check, then write plan.json and one .aar"
            + " per process (nothing when the document has errors); prints the written files.")
            .value("--output", "DIR", "the output directory (default: <stem>.build next to the document)")
            .alias("-o", "--output")
            .flag("--bundle-runtime", "put the MPFL runtime jars into every archive (for a stock Axis2 container)");
    @Override
    public String name() {
        return "compile";
    }

    @Override
    public String summary() {
        return "compile to a deployment plan and service archives: FILE [-o DIR] [--param NAME=VALUE]... [--bundle-runtime]";
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws UsageException {
        Arguments parsed = SPEC.parse(args);
        DocumentArguments arguments = DocumentArguments.of(parsed);
        if (!Files.isRegularFile(arguments.file())) {
            err.println("mpflc compile: " + CheckCommand.missing(arguments));
            return 1;
        }
        Path output = parsed.has("--output") ? parsed.path("--output") : BuildWriter.defaultOutputDirectory(arguments.file());
        if (Files.exists(output) && !Files.isDirectory(output)) {
            // said before the checks run, not as "cannot write F: F" after them
            throw new UsageException("-o " + output + " is a file: give a directory (compile writes plan.json and one .aar per"
                    + " process into it, creating it if needed)");
        }
        MpflCompiler.CheckResult result = new MpflCompiler().check(arguments.file(), arguments.displayName(), arguments.params());
        CheckCommand.report(result.diagnostics(), err);
        if (!result.ok()) {
            return 1;
        }
        try {
            byte[] source = Files.readAllBytes(arguments.file());
            Path documentDirectory = arguments.file().toAbsolutePath().getParent();
            RuntimeBundle runtime = parsed.flag("--bundle-runtime") ? RuntimeBundle.fromClassPath() : null;
            for (Path written : BuildWriter.write(result.workflow(), source, documentDirectory, output, runtime)) {
                out.println(written);
            }
        } catch (IOException e) {
            // the file that could not be written and why (the JDK's message of a missing or forbidden one is its path alone)
            err.println("mpflc compile: cannot write " + (e instanceof FileSystemException f && f.getFile() != null
                    ? FileProblem.of(Path.of(f.getFile()), f) : output + ": " + e.getMessage()));
            return 1;
        }
        return 0;
    }
}
