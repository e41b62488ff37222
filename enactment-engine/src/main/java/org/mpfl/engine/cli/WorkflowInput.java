package org.mpfl.engine.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.mpfl.ir.spi.WorkflowCompiler;
import org.mpfl.engine.json.Json;
import org.mpfl.engine.workflow.Compilers;

/**
 * What the command line sends to the engine for a FILE argument: an MPFL document is checked and
 * compiled here (static errors stop it before anything starts); a {@code .json} file is taken as a
 * deployment plan; a directory as the output of {@code mpflc compile} (one plan {@code .json} and
 * the generated {@code .aar} archives).
 *
 * @param plan     deployment plan
 * @param archives generated services by service type
 * @param params   parameter values to send with the run: typed by the compiler for a document, as
 *                 typed on the command line otherwise
 */
record WorkflowInput(JsonNode plan, Map<String, byte[]> archives, Map<String, Object> params) {

    /**
     * @param params    parameter values guessed into JSON types (for plans, which carry no declarations)
     * @param rawParams the same values as typed, for the compiler to type by the declarations
     */
    static WorkflowInput load(Path file, Map<String, Object> params, Map<String, Object> rawParams)
            throws IOException, WorkflowCompiler.CompileException {
        if (Files.isDirectory(file)) {
            return fromDirectory(file, params);
        }
        if (!Files.isRegularFile(file)) {
            throw new IOException(file + ": no such file");
        }
        if (file.getFileName().toString().endsWith(".json")) {
            return new WorkflowInput(Json.MAPPER.readTree(file.toFile()), archivesNextTo(file.getParent()), params);
        }
        String document = Files.readString(file, StandardCharsets.UTF_8);
        WorkflowCompiler.Compiled c = Compilers.forFile(file).compile(file.toString(), document, rawParams);
        return new WorkflowInput(c.planJson(), c.archives(), c.params());
    }

    private static WorkflowInput fromDirectory(Path dir, Map<String, Object> params) throws IOException {
        List<Path> plans = new ArrayList<>();
        try (var s = Files.list(dir)) {
            s.filter(p -> p.getFileName().toString().endsWith(".json")).sorted().forEach(plans::add);
        }
        if (plans.size() != 1) {
            throw new IOException(dir + ": expected one deployment plan (.json) in the directory, found " + plans.size());
        }
        return new WorkflowInput(Json.MAPPER.readTree(plans.get(0).toFile()), archivesNextTo(dir), params);
    }

    private static Map<String, byte[]> archivesNextTo(Path dir) throws IOException {
        Map<String, byte[]> out = new LinkedHashMap<>();
        if (dir == null) {
            return out;
        }
        try (var s = Files.list(dir)) {
            for (Path p : s.filter(p -> p.getFileName().toString().endsWith(".aar")).sorted().toList()) {
                String name = p.getFileName().toString();
                out.put(name.substring(0, name.length() - 4), Files.readAllBytes(p));
            }
        }
        return out;
    }

    /** The archives as the REST API takes them. */
    List<Map<String, String>> archivesJson() {
        List<Map<String, String>> out = new ArrayList<>();
        archives.forEach((service, bytes) -> out.add(Map.of("service", service, "archive", Base64.getEncoder().encodeToString(bytes))));
        return out;
    }
}
