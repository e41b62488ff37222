package org.mpfl.compiler.gen;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.mpfl.compiler.gen.PlanBuilder;
import org.mpfl.ir.IrWorkflow;
import org.mpfl.ir.plan.DeploymentPlan;
import org.mpfl.ir.plan.PlanJson;
import org.mpfl.ir.plan.PlanProcess;

/**
 * The output step of {@code mpflc compile}: {@code plan.json} and one {@code .aar} per process in
 * the output directory.
 */
public final class BuildWriter {
    /** File name of the plan in the output directory. */
    public static final String PLAN_FILE = "plan.json";

    private BuildWriter() {
    }

    /** The default output directory of a document: {@code <stem>.build} next to it ({@code heat.mpfl.xml} → {@code heat.build}). */
    public static Path defaultOutputDirectory(Path document) {
        String name = document.getFileName().toString();
        String stem = name.endsWith(".mpfl.xml") ? name.substring(0, name.length() - ".mpfl.xml".length())
                : name.endsWith(".xml") ? name.substring(0, name.length() - 4) : name;
        Path parent = document.toAbsolutePath().getParent();
        return parent.resolve(stem + ".build");
    }

    /**
     * Writes the plan and the archives of an error-free workflow.
     *
     * @return the files written (plan first)
     */
    public static List<Path> write(IrWorkflow workflow, byte[] source, Path documentDirectory, Path outputDirectory)
            throws IOException {
        return write(workflow, source, documentDirectory, outputDirectory, null);
    }

    /**
     * Writes the plan and the archives, each with the runtime jars of {@code runtime} unless it is
     * {@code null} ({@code mpflc compile --bundle-runtime}).
     *
     * @return the files written (plan first)
     */
    public static List<Path> write(IrWorkflow workflow, byte[] source, Path documentDirectory, Path outputDirectory,
            RuntimeBundle runtime) throws IOException {
        Files.createDirectories(outputDirectory);
        DeploymentPlan plan = PlanBuilder.build(workflow, source);
        List<Path> written = new ArrayList<>();
        Path planFile = outputDirectory.resolve(PLAN_FILE);
        Files.write(planFile, PlanJson.toPrettyBytes(plan));
        written.add(planFile);
        for (PlanProcess process : plan.processes()) {
            Path archive = outputDirectory.resolve(process.archive());
            ServiceArchiveWriter.write(plan, process, documentDirectory, archive, runtime);
            written.add(archive);
        }
        return written;
    }
}
