package org.mpfl.engine.rest;

import static org.mpfl.engine.rest.Requests.body;
import static org.mpfl.engine.rest.Requests.param;
import static org.mpfl.engine.rest.Requests.requireAdmin;
import static org.mpfl.engine.rest.Requests.requireRole;
import static org.mpfl.engine.rest.Requests.requireTypes;
import static org.mpfl.engine.rest.Requests.text;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.camel.Exchange;
import org.mpfl.engine.access.Caller;
import org.mpfl.engine.access.Role;
import org.mpfl.engine.deploy.EngineStorageException;
import org.mpfl.engine.rest.EngineRoutes.Api;
import org.mpfl.engine.rest.EngineRoutes.RawText;
import org.mpfl.engine.rest.EngineRoutes.Reply;
import org.mpfl.engine.store.WorkflowVersionStore;
import org.mpfl.engine.workflow.WorkflowService;

/**
 * The engine's own description and the workflows with their service archives: {@code GET /api/engine},
 * {@code /api/openapi}, {@code /api/workflows[/{name}[/graph]]} and {@code /api/deployments}. Saving a
 * workflow needs the operator role; anything that carries archives (code the hosts will run) the admin role.
 */
final class WorkflowEndpoints {
    private final Api api;

    WorkflowEndpoints(Api api) {
        this.api = api;
    }

    Reply list(Exchange ex) {
        Caller caller = AccessFilter.caller(ex);
        return Reply.ok(api.workflows().list().stream().filter(w -> api.access().seesWorkflow(caller, w.name()))
                .map(WorkflowEndpoints::workflowSummary).toList());
    }

    Reply engineInfo(Exchange ex) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", "mpfl-engine");
        m.put("url", api.url().get());
        m.put("hosts", api.registry().hosts().size());
        m.put("openRegistry", false); // hosts always need their credential (kept for older clients)
        m.put("heartbeatTimeoutMs", api.registry().heartbeatTimeout().toMillis());
        return Reply.ok(m);
    }

    Reply openApi(Exchange ex) throws IOException, ApiException {
        try (InputStream in = WorkflowEndpoints.class.getResourceAsStream("/org/mpfl/engine/openapi.yaml")) {
            if (in == null) {
                throw new ApiException(404, "openapi.yaml is not packaged in this build");
            }
            return Reply.ok(new RawText("application/yaml", new String(in.readAllBytes(), StandardCharsets.UTF_8)));
        } catch (IOException e) {
            // a file of the engine's own build (its jar damaged or replaced under it): not the client's request
            throw new EngineStorageException("cannot read the packaged openapi.yaml", e);
        }
    }

    private static Map<String, Object> workflowSummary(WorkflowVersionStore.StoredWorkflow w) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", w.name());
        m.put("updatedMs", w.updatedMs());
        m.put("hasDocument", w.document() != null);
        m.put("hasPlan", w.plan() != null);
        m.put("latestVersion", w.version());
        return m;
    }

    /** One version in a workflow's listing. */
    private static Map<String, Object> versionView(WorkflowVersionStore.StoredWorkflow v, int latest) throws EngineStorageException {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("version", v.version());
        m.put("deployedMs", v.deployedMs());
        m.put("sourceSha256", v.sourceSha256());
        m.put("latest", v.version() == latest);
        m.put("services", WorkflowService.storedServiceNames(v));
        return m;
    }

    /**
     * {@code {"name"?, "document"?, "file"?, "plan"?, "archives"?}}: deploys a workflow. 201 with
     * {@code name}, {@code version}, {@code created: true} when it made a new version; 200 with the
     * latest version and {@code created: false} when nothing changed. {@code deployed}: per service
     * name, per host, "ok" or the error.
     */
    Reply save(Exchange ex) throws Exception {
        Caller caller = requireRole(ex, Role.OPERATOR);
        JsonNode b = body(ex);
        requireTypes(b, List.of("name", "project", "document", "file"), List.of(), List.of("archives"));
        String name = text(b, "name");
        if (name != null && !WorkflowService.isName(name)) {
            // before anything is compiled or deployed: the name is wrong whatever the document says
            throw new ApiException(400, "'name': " + WorkflowService.badName(name));
        }
        Map<String, byte[]> archives = b.has("archives") && b.get("archives").isArray() ? archives(b.get("archives")) : Map.of();
        if (!archives.isEmpty()) {
            Requests.requireArchiveSender(ex);
        }
        String project = api.access().workflowProject(name, caller, text(b, "project"));
        WorkflowService.Deployed d = api.workflows().save(new WorkflowService.SaveWorkflow(name, text(b, "document"),
                text(b, "file"), b.get("plan"), archives), project);
        api.access().ownWorkflow(d.name(), caller, project);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", d.name());
        m.put("version", d.version());
        m.put("created", d.created());
        m.put("deployed", d.deployed());
        return d.created() ? new Reply(201, new EngineRoutes.Headed(m, Map.of("Location", "/api/workflows/" + d.name() + "@" + d.version())))
                : new Reply(200, m);
    }

    /** {@code ?format=svg} (default; 503 with the reason when Graphviz is missing) or {@code ?format=dot}. */
    Reply graph(Exchange ex) throws Exception {
        String format = param(ex, "format") == null ? "svg" : param(ex, "format");
        if (!format.equals("svg") && !format.equals("dot")) {
            throw new ApiException(400, "format must be svg or dot, got '" + format + "'");
        }
        try {
            WorkflowService.Graph g = api.workflows().graph(param(ex, "name"), format.equals("svg"));
            return Reply.ok(new RawText(g.contentType(), g.text()));
        } catch (WorkflowService.NoDocumentException e) {
            throw new ApiException(409, e.getMessage());
        } catch (WorkflowService.NoRendererException e) {
            throw new ApiException(503, e.getMessage() + " (the DOT text is at ?format=dot)");
        }
    }

    /**
     * {@code NAME}: the latest version's document and plan with the list of every version;
     * {@code NAME@N}: version N's.
     */
    Reply get(Exchange ex) throws Exception {
        WorkflowVersionStore.StoredWorkflow w = api.workflows().get(param(ex, "name"));
        Map<String, Object> m = workflowSummary(w);
        List<WorkflowVersionStore.StoredWorkflow> versions = api.workflows().versions(w.name());
        int latest = versions.get(versions.size() - 1).version();
        m.put("latestVersion", latest);
        m.put("version", w.version());
        m.put("sourceSha256", w.sourceSha256());
        List<Map<String, Object>> views = new ArrayList<>();
        for (WorkflowVersionStore.StoredWorkflow v : versions) {
            views.add(versionView(v, latest));
        }
        m.put("versions", views);
        m.put("document", w.document());
        m.put("plan", WorkflowService.planJson(w).orElse(null));
        return Reply.ok(m);
    }

    Reply services(Exchange ex) throws IOException {
        return Reply.ok(Map.of("services", api.deployments().services()));
    }

    /**
     * {@code {"service": name, "archive": base64}} or {@code {"archives": [{"service", "archive"}, ...]}}:
     * stores each archive and installs it on every live host, for every project (runs of any project may use it).
     */
    Reply deploy(Exchange ex) throws Exception {
        requireAdmin(ex);
        JsonNode b = body(ex);
        boolean many = b.has("archives") && b.get("archives").isArray();
        // deployed alone, by an admin, for every project: as a service installed on the hosts by hand
        return new Reply(201, Map.of("deployed", api.deployments().deployAll(many ? archives(b.get("archives")) : archives(List.of(b), null),
                org.mpfl.engine.deploy.DeploymentService.SHARED)));
    }

    /** {@code [{"service", "archive": base64}]}, the field {@code archives} of a request, as archive bytes by service type. */
    static Map<String, byte[]> archives(JsonNode items) throws ApiException {
        List<JsonNode> list = new ArrayList<>();
        items.forEach(list::add);
        return archives(list, "archives");
    }

    /**
     * {@code {"service", "archive": base64}} items as archive bytes by service type; {@code field}: the array they are
     * in, {@code null} for the request's own fields. Text that is not base64 is refused naming its field and what is
     * wrong with it: the decoder's words ("Illegal base64 character 21") named a character by its hex code.
     */
    static Map<String, byte[]> archives(List<JsonNode> items, String field) throws ApiException {
        Map<String, byte[]> archives = new LinkedHashMap<>();
        for (int i = 0; i < items.size(); i++) {
            JsonNode a = items.get(i);
            String service = a.path("service").asText(null);
            String data = a.path("archive").asText(null);
            if (service == null || data == null) {
                throw new ApiException(400, "each deployment needs 'service' and 'archive' (base64 of the .aar)");
            }
            try {
                archives.put(service, Base64.getDecoder().decode(data));
            } catch (IllegalArgumentException e) {
                throw new ApiException(400, "'" + (field == null ? "" : field + "[" + i + "].") + "archive' (service '" + service
                        + "') is not base64 (RFC 4648): " + notBase64(data));
            }
        }
        return archives;
    }

    /** What makes {@code data} no base64 text, briefly. */
    private static String notBase64(String data) {
        for (int i = 0; i < data.length(); i++) {
            char c = data.charAt(i);
            if (!(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=')) {
                boolean space = Character.isISOControl(c) || Character.isWhitespace(c);
                // base64 FILE wraps its lines at 76 characters: the decoder takes one line
                return (space ? String.format("U+%04X", (int) c) : "'" + c + "'") + " at character " + (i + 1)
                        + " is not a base64 character" + (space ? " (send it without line breaks: base64 -w0 FILE)" : "");
            }
        }
        return "its length or padding is wrong (" + data.length() + " characters)";
    }
}
