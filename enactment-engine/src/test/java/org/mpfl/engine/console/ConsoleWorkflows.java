package org.mpfl.engine.console;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.mpfl.ir.spi.WorkflowCompiler;
import org.mpfl.engine.Engine;
import org.mpfl.testing.Http;
import org.mpfl.engine.console.activities.Pause;
import org.mpfl.engine.e2e.TestActivities;
import org.mpfl.engine.workflow.Compilers;

/**
 * The console tests' MPFL documents ({@code ring-rounds}, {@code failing}, {@code stuck}), copied
 * into a directory with their activity library {@code console-activities.jar}, and started the way
 * {@code mpflc run FILE --engine URL} starts them: compiled here, then plan, generated service
 * archives and typed parameters POSTed to {@code /api/runs} (which returns at once with the run id).
 */
final class ConsoleWorkflows {
    private static final String[] DOCUMENTS = {"ring-rounds.mpfl.xml", "failing.mpfl.xml", "stuck.mpfl.xml"};
    private final Path dir;

    private ConsoleWorkflows(Path dir) {
        this.dir = dir;
    }

    /** Writes the documents and the library jar into a fresh directory. */
    static ConsoleWorkflows prepare() throws IOException {
        Path dir = Files.createTempDirectory("mpfl-console-workflows-");
        for (String d : DOCUMENTS) {
            try (InputStream in = ConsoleWorkflows.class.getResourceAsStream(d)) {
                if (in == null) {
                    throw new IOException("test resource " + d + " is missing");
                }
                Files.copy(in, dir.resolve(d));
            }
        }
        TestActivities.jar(dir.resolve("console-activities.jar"), Pause.class);
        return new ConsoleWorkflows(dir);
    }

    Path document(String name) {
        return dir.resolve(name);
    }

    /** Stores {@code document} as workflow {@code name} as {@code mpflc deploy} does: plan, archives and the document. */
    Http.Answer deploy(Engine engine, String name, String document) throws Exception {
        Path file = document(document);
        WorkflowCompiler.Compiled c = Compilers.forFile(file).compile(file.toString(), Files.readString(file, StandardCharsets.UTF_8), Map.of());
        return Http.post(engine.url() + "/api/workflows", engine.token(), Map.of("name", name, "document",
                Files.readString(file, StandardCharsets.UTF_8), "file", document, "plan", c.planJson(), "archives", archives(c)));
    }

    private static List<Map<String, String>> archives(WorkflowCompiler.Compiled c) {
        List<Map<String, String>> archives = new ArrayList<>();
        c.archives().forEach((service, bytes) -> archives.add(Map.of("service", service,
                "archive", Base64.getEncoder().encodeToString(bytes))));
        return archives;
    }

    /** Compiles {@code document} with these parameter values and starts it; returns the run id. */
    String start(Engine engine, String document, Map<String, Object> params) throws Exception {
        Path file = document(document);
        WorkflowCompiler.Compiled c = Compilers.forFile(file).compile(file.toString(),
                Files.readString(file, StandardCharsets.UTF_8), params);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("plan", c.plan());
        body.put("archives", archives(c));
        body.put("params", c.params());
        Http.Answer a = Http.post(engine.url() + "/api/runs", engine.token(), body);
        assertEquals(201, a.status(), a.body());
        return a.json().get("id").asText();
    }
}
