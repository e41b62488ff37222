package org.mpfl.compiler.commands;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.mpfl.compiler.MpflCompiler;
import org.mpfl.ir.cli.ArgumentSpec;
import org.mpfl.ir.cli.Arguments;
import org.mpfl.ir.cli.CliCommand;
import org.mpfl.ir.cli.UsageException;
import org.mpfl.compiler.gen.Graphviz;

/**
 * {@code mpflc graph FILE [--param k=v]… [-o out.svg|out.dot]}: the picture of a workflow — its
 * processes, the messages and the collectives between them ({@link MpflCompiler#picture}, derived
 * from the checked document with these parameter values) — as Graphviz DOT, or SVG rendered by Graphviz's
 * {@code dot} when the output ends in {@code .svg}. Without {@code -o} the DOT goes to standard output.
 * A document with static errors gets its diagnostics and no picture; its warnings come before the picture.
 */
public final class GraphCommand implements CliCommand {
    private static final ArgumentSpec SPEC = DocumentArguments.spec("graph", "The picture of a workflow: its processes,"
            + " messages and collectives, as Graphviz DOT (stdout without -o) or SVG (-o FILE.svg, rendered by dot).")
            .value("--output", "FILE", "out.svg, out.dot or out.gv; without it the DOT goes to standard output")
            .alias("-o", "--output");
    @Override
    public String name() {
        return "graph";
    }

    @Override
    public String summary() {
        return "FILE [--param NAME=VALUE]... [-o out.svg|out.dot]  draw the processes, messages and collectives";
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws Exception {
        Arguments parsed = SPEC.parse(args);
        Path output = parsed.path("--output");
        String name = output == null ? "" : output.getFileName().toString().toLowerCase(java.util.Locale.ROOT);
        if (output != null && !name.endsWith(".svg") && !name.endsWith(".dot") && !name.endsWith(".gv")) {
            throw new UsageException("-o wants a file ending in .svg, .dot or .gv (DOT), got " + output);
        }
        DocumentArguments arguments = DocumentArguments.of(parsed);
        if (!Files.isRegularFile(arguments.file())) {
            err.println("mpflc graph: " + CheckCommand.missing(arguments));
            return 1;
        }
        MpflCompiler compiler = new MpflCompiler();
        MpflCompiler.CheckResult result = compiler.check(arguments.file(), arguments.displayName(), arguments.params());
        if (!result.ok()) {
            CheckCommand.report(result.diagnostics(), err);
            return 1;
        }
        if (!result.diagnostics().isEmpty()) {
            CheckCommand.report(result.diagnostics(), err); // warnings, as check prints them: the picture does not show them
        }
        MpflCompiler.Picture graph = compiler.picture(result);
        graph.notes().forEach(n -> err.println("mpflc graph: note: " + n));
        String dot = graph.dot();
        if (output == null) {
            out.print(dot);
            return 0;
        }
        if (name.endsWith(".svg")) {
            try {
                Files.writeString(output, Graphviz.svg(dot), StandardCharsets.UTF_8);
            } catch (Graphviz.UnavailableException e) {
                err.println("mpflc graph: " + e.getMessage());
                return 1;
            }
        } else {
            Files.writeString(output, dot, StandardCharsets.UTF_8);
        }
        err.println("mpflc graph: wrote " + output + " (processes: " + graph.processes() + ", message flows: "
                + graph.messageFlows() + ", collectives: " + graph.collectives() + ")");
        return 0;
    }
}
