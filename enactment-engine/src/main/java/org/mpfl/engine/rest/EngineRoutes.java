package org.mpfl.engine.rest;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.mpfl.ir.spi.WorkflowCompiler;
import org.mpfl.engine.access.AccessDenied;
import org.mpfl.engine.access.AccessPolicy;
import org.mpfl.engine.access.Caller;
import org.mpfl.engine.access.Role;
import org.mpfl.engine.deploy.DeploymentService;
import org.mpfl.engine.json.Json;
import org.mpfl.engine.registry.HostAnnouncement;
import org.mpfl.engine.registry.HostCredentials;
import org.mpfl.engine.registry.HostInfo;
import org.mpfl.engine.registry.HostRegistry;
import org.mpfl.engine.run.ForeignEventException;
import org.mpfl.engine.run.Queueing;
import org.mpfl.engine.run.ResumeRefusedException;
import org.mpfl.engine.run.Run;
import org.mpfl.engine.run.RunListing;
import org.mpfl.engine.run.RunService;
import org.mpfl.engine.run.SiteRequest;
import org.mpfl.engine.run.UnknownRunException;
import org.mpfl.engine.store.RunQuery;
import org.mpfl.engine.store.RunStore;
import org.mpfl.engine.store.WorkflowVersionStore;
import org.mpfl.engine.workflow.WorkflowService;
import org.mpfl.protocol.HostCredential;
import org.mpfl.protocol.RankEvent;

/**
 * The REST API of the engine as Camel REST DSL routes on platform-http (Vert.x): workflows,
 * deployments, runs, rank events, registry and the OpenAPI document. This class only translates HTTP:
 * each handler checks authorisation, parses the request (text body as JSON, path and query
 * parameters), calls one use case of {@link WorkflowService}, {@link RunService},
 * {@link DeploymentService} or {@link HostRegistry}, and maps its answer or exception to a status and
 * a JSON body. Mutating endpoints demand {@code Authorization: Bearer <engine token>} (401 otherwise).
 * Rank events are authorised by their unguessable domain ID instead. The registry is closed: announce,
 * heartbeat and leave need a host credential ({@link HostCredentials}; 401 without a valid one, before
 * anything is read or allocated) and a host speaks only for its own host id (403 otherwise); the admin
 * token issues, lists and revokes credentials and may remove any host.
 */
public final class EngineRoutes extends RouteBuilder {
    private final Api api;

    /**
     * What the REST API serves: the use cases behind it and the settings it reports or enforces.
     *
     * @param url          the engine's base URL (known once the server is bound)
     * @param token        the engine token mutating requests must carry
     * @param registry     the host registry
     * @param credentials  the hosts' credentials
     * @param runs         runs
     * @param workflows    stored workflows and run starts
     * @param deployments  service archives
     * @param access       who may see and do what ({@link AccessFilter} applies it before a route runs; the
     *                     routes use it for what only the body tells: projects of new runs and workflows, lists)
     */
    public record Api(Supplier<String> url, String token, HostRegistry registry, HostCredentials credentials, RunService runs,
                      WorkflowService workflows, DeploymentService deployments, AccessPolicy access) {
    }

    public EngineRoutes(Api api) {
        this.api = api;
    }

    /** One endpoint's logic: request in, JSON-ready answer out (or an {@link ApiException}). */
    @FunctionalInterface
    interface Handler {
        Reply handle(Exchange request) throws Exception;
    }

    /** An answer: status and body ({@code null}: empty). */
    record Reply(int status, Object body) {
        static Reply ok(Object body) {
            return new Reply(200, body);
        }
    }

    @Override
    public void configure() {
        rest("/api")
                .get("/engine").to(direct("engine-info"))
                .get("/openapi").to(direct("openapi"))
                .get("/workflows").to(direct("workflows-list"))
                .post("/workflows").to(direct("workflows-save"))
                .get("/workflows/{name}").to(direct("workflows-get"))
                .get("/workflows/{name}/graph").to(direct("workflows-graph"))
                .get("/deployments").to(direct("deployments-list"))
                .post("/deployments").to(direct("deployments-create"))
                .get("/runs").to(direct("runs-list"))
                .post("/runs").to(direct("runs-start"))
                .get("/runs/{id}").to(direct("runs-get"))
                .post("/runs/{id}/cancel").to(direct("runs-cancel"))
                .post("/runs/{id}/resume").to(direct("runs-resume"))
                .get("/runs/{id}/log").to(direct("runs-log"))
                .get("/runs/{id}/logs").to(direct("runs-logs-text"))
                .get("/runs/{id}/trace").to(direct("runs-trace"))
                .post("/runs/{id}/ranks/events").to(direct("rank-events"))
                .get("/registry/hosts").to(direct("hosts-list"))
                .post("/registry/hosts").to(direct("hosts-announce"))
                .post("/registry/hosts/{hostId}/heartbeat").to(direct("hosts-heartbeat"))
                .delete("/registry/hosts/{hostId}").to(direct("hosts-remove"))
                .get("/registry/credentials").to(direct("credentials-list"))
                .post("/registry/credentials").to(direct("credentials-issue"))
                .delete("/registry/credentials/{id}").to(direct("credentials-revoke"))
                .get("/registry/relays").to(direct("relays-list"))
                .post("/registry/relays").to(direct("relays-announce"))
                .post("/registry/relays/verify").to(direct("relays-verify"));

        handle("engine-info", this::engineInfo);
        handle("openapi", this::openApi);
        handle("workflows-list", ex -> {
            Caller caller = AccessFilter.caller(ex);
            return Reply.ok(api.workflows().list().stream().filter(w -> api.access().seesWorkflow(caller, w.name()))
                    .map(EngineRoutes::workflowSummary).toList());
        });
        handle("workflows-save", this::saveWorkflow);
        handle("workflows-get", this::getWorkflow);
        handle("workflows-graph", this::workflowGraph);
        handle("deployments-list", ex -> Reply.ok(Map.of("services", api.deployments().services())));
        handle("deployments-create", this::deploy);
        handle("runs-list", this::listRuns);
        handle("runs-start", this::startRun);
        handle("runs-get", ex -> Reply.ok(api.runs().detail(param(ex, "id"))
                .orElseThrow(() -> new ApiException(404, "no run '" + param(ex, "id") + "'"))));
        handle("runs-cancel", this::cancelRun);
        handle("runs-resume", this::resumeRun);
        handle("runs-log", this::runLog);
        handle("runs-logs-text", this::runLogText);
        handle("runs-trace", ex -> Reply.ok(api.runs().trace(param(ex, "id"))));
        handle("rank-events", this::rankEvents);
        handle("hosts-list", ex -> Reply.ok(hostViews()));
        handle("hosts-announce", this::announce);
        handle("hosts-heartbeat", this::heartbeat);
        handle("hosts-remove", ex -> {
            String hostId = param(ex, "hostId");
            if (!hasAdminToken(ex)) {
                requireHostSpeakingFor(ex, hostId);
            }
            api.registry().remove(hostId, false);
            return new Reply(204, null);
        });
        handle("credentials-list", ex -> {
            requireToken(ex);
            return Reply.ok(api.credentials().list().stream().map(e -> {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("id", e.id());
                m.put("hostId", e.hostId());
                m.put("createdMs", e.createdMs());
                return m;
            }).toList());
        });
        handle("credentials-issue", this::issueCredential);
        handle("relays-list", ex -> Reply.ok(api.registry().relays().list()));
        handle("relays-announce", ex -> {
            String own = requireHost(ex);
            if (api.registry().host(own).isPresent()) {
                throw new ApiException(409, "'" + own + "' is registered as a service host: a relay needs a credential of its own");
            }
            try {
                return new Reply(201, api.registry().relays().announce(own, body(ex).path("address").asText(null)));
            } catch (IllegalArgumentException e) {
                throw new ApiException(400, e.getMessage());
            }
        });
        handle("relays-verify", ex -> {
            String relay = requireHost(ex);
            if (!api.registry().relays().isRelay(relay)) {
                throw new ApiException(403, "only a relay (announced with POST /api/registry/relays) checks hosts' proofs");
            }
            JsonNode b = body(ex);
            return Reply.ok(Map.of("valid", api.registry().relays().verify(api.credentials(), relay,
                    b.path("hostId").asText(""), b.path("nonce").asText(""), b.path("proof").asText(""))));
        });
        handle("credentials-revoke", ex -> {
            requireToken(ex);
            HostCredentials.Entry gone = api.credentials().revoke(param(ex, "id"))
                    .orElseThrow(() -> new ApiException(404, "no host credential '" + param(ex, "id") + "'"));
            // the host leaves now, its runs hear of it as of a lost host; its later requests get 401
            api.registry().remove(gone.hostId(), true);
            log.info("host credential {} of host {} revoked", gone.id(), gone.hostId());
            return new Reply(204, null);
        });
    }

    private static String direct(String name) {
        return "direct:api-" + name;
    }

    private void handle(String name, Handler h) {
        from(direct(name)).routeId("api-" + name).process(ex -> {
            Reply reply;
            try {
                reply = h.handle(ex);
            } catch (ApiException e) {
                reply = new Reply(e.status(), Map.of("error", e.getMessage()));
            } catch (AccessDenied e) {
                reply = new Reply(e.status(), Map.of("error", e.getMessage()));
            } catch (WorkflowCompiler.CompileException e) {
                reply = new Reply(422, Map.of("error", "the document has static errors:\n" + e.getMessage()));
            } catch (WorkflowService.UnknownWorkflowException e) {
                reply = new Reply(404, Map.of("error", e.getMessage()));
            } catch (ForeignEventException e) {
                reply = new Reply(403, Map.of("error", e.getMessage()));
            } catch (IllegalArgumentException | IOException e) {
                reply = new Reply(400, Map.of("error", e.getMessage() == null ? e.toString() : e.getMessage()));
            } catch (UnknownRunException e) {
                reply = new Reply(404, Map.of("error", e.getMessage()));
            } catch (ResumeRefusedException e) {
                reply = new Reply(409, Map.of("error", e.getMessage()));
            } catch (Exception e) {
                log.error("{} failed", name, e);
                reply = new Reply(500, Map.of("error", "internal error: " + e));
            }
            boolean unauthorised = reply.status() == 401;
            // request headers must not echo into the response (Authorization above all)
            ex.getMessage().removeHeaders("*");
            ex.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, reply.status());
            if (unauthorised) {
                ex.getMessage().setHeader("WWW-Authenticate", "Bearer realm=\"mpfl-engine\"");
            }
            if (reply.body() == null) {
                ex.getMessage().setBody(null);
            } else if (reply.body() instanceof Headed headed) {
                headed.headers().forEach(ex.getMessage()::setHeader);
                ex.getMessage().setHeader(Exchange.CONTENT_TYPE, "application/json");
                ex.getMessage().setBody(Json.write(headed.body()));
            } else if (reply.body() instanceof RawText raw) {
                ex.getMessage().setHeader(Exchange.CONTENT_TYPE, raw.contentType());
                ex.getMessage().setBody(raw.text());
            } else {
                ex.getMessage().setHeader(Exchange.CONTENT_TYPE, "application/json");
                ex.getMessage().setBody(Json.write(reply.body()));
            }
        });
    }

    /** A body that is sent as is. */
    record RawText(String contentType, String text) {
    }

    /** A JSON body with response headers of its own (e.g. a list's {@code X-Total-Count}). */
    record Headed(Object body, Map<String, String> headers) {
    }

    private static String param(Exchange ex, String name) {
        return ex.getIn().getHeader(name, String.class);
    }

    /** A text field of a JSON body, {@code null} when absent or null. */
    private static String text(JsonNode body, String field) {
        return body.hasNonNull(field) ? body.get(field).asText() : null;
    }

    private static JsonNode body(Exchange ex) throws ApiException {
        String text = ex.getIn().getBody(String.class);
        if (text == null || text.isBlank()) {
            throw new ApiException(400, "a JSON body is required");
        }
        try {
            return Json.MAPPER.readTree(text);
        } catch (IOException e) {
            throw new ApiException(400, "the body is not valid JSON: " + e.getMessage());
        }
    }

    /** 401 unless the request carries the engine token or an admin's token. */
    private void requireToken(Exchange ex) throws ApiException {
        requireRole(ex, Role.ADMIN);
    }

    /**
     * 401/403 unless the caller the access filter admitted has {@code role} (the filter checked the
     * route already; this guards what only the body tells, such as archives, which put code on hosts).
     */
    private static Caller requireRole(Exchange ex, Role role) throws ApiException {
        Caller c = AccessFilter.caller(ex);
        if (c.kind() == Caller.Kind.ANONYMOUS || c.kind() == Caller.Kind.HOST) {
            throw new ApiException(401, ex.getIn().getHeader("Authorization") == null
                    ? "this request needs 'Authorization: Bearer <engine token>'" : "wrong engine token");
        }
        if (!c.role().includes(role)) {
            throw new ApiException(403, "this needs the " + role.name().toLowerCase(Locale.ROOT) + " role");
        }
        return c;
    }

    private boolean hasAdminToken(Exchange ex) {
        String auth = ex.getIn().getHeader("Authorization", String.class);
        String expected = "Bearer " + api.token();
        return auth != null && MessageDigest.isEqual(auth.strip().getBytes(StandardCharsets.UTF_8),
                expected.getBytes(StandardCharsets.UTF_8));
    }

    /** The host id a request's host credential speaks for; 401 without a valid host credential. */
    private String requireHost(Exchange ex) throws ApiException {
        String auth = ex.getIn().getHeader("Authorization", String.class);
        return api.credentials().authenticate(auth).orElseThrow(() -> new ApiException(401, auth == null
                ? "the registry is closed: this request needs 'Authorization: Bearer <host credential>' (mpflc host-token)"
                : "not a valid host credential (unknown, revoked or wrong secret)"));
    }

    /** 401 without a valid host credential, 403 when it belongs to another host than {@code hostId}. */
    private void requireHostSpeakingFor(Exchange ex, String hostId) throws ApiException {
        String own = requireHost(ex);
        if (!own.equals(hostId)) {
            throw new ApiException(403, "this credential speaks for host '" + own + "', not '" + hostId + "'");
        }
    }

    /** {@code {"hostId"?}} with the admin token: a new host credential (201; the only time its secret is shown). */
    private Reply issueCredential(Exchange ex) throws Exception {
        requireToken(ex);
        String text = ex.getIn().getBody(String.class);
        String hostId = null;
        if (text != null && !text.isBlank()) {
            try {
                hostId = text(Json.MAPPER.readTree(text), "hostId");
            } catch (IOException e) {
                throw new ApiException(400, "the body is not valid JSON: " + e.getMessage());
            }
        }
        HostCredential c;
        try {
            c = api.credentials().issue(hostId, api.url().get());
        } catch (HostCredentials.HostIdTakenException e) {
            throw new ApiException(409, e.getMessage());
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", c.id());
        m.put("hostId", c.hostId());
        m.put("engine", c.engineUrl());
        m.put("secret", c.secret());
        m.put("credential", c.text());
        return new Reply(201, m);
    }

    private Reply engineInfo(Exchange ex) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", "mpfl-engine");
        m.put("url", api.url().get());
        m.put("hosts", api.registry().hosts().size());
        m.put("openRegistry", false); // hosts always need their credential (kept for older clients)
        m.put("heartbeatTimeoutMs", api.registry().heartbeatTimeout().toMillis());
        return Reply.ok(m);
    }

    private Reply openApi(Exchange ex) throws IOException, ApiException {
        try (InputStream in = EngineRoutes.class.getResourceAsStream("/org/mpfl/engine/openapi.yaml")) {
            if (in == null) {
                throw new ApiException(404, "openapi.yaml is not packaged in this build");
            }
            return Reply.ok(new RawText("application/yaml", new String(in.readAllBytes(), StandardCharsets.UTF_8)));
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
    private static Map<String, Object> versionView(WorkflowVersionStore.StoredWorkflow v, int latest) throws IOException {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("version", v.version());
        m.put("deployedMs", v.deployedMs());
        m.put("sourceSha256", v.sourceSha256());
        m.put("latest", v.version() == latest);
        m.put("services", v.services() == null ? null : Json.MAPPER.readTree(v.services()));
        return m;
    }

    /**
     * {@code {"name"?, "document"?, "file"?, "plan"?, "archives"?}}: deploys a workflow. 201 with
     * {@code name}, {@code version}, {@code created: true} when it made a new version; 200 with the
     * latest version and {@code created: false} when nothing changed. {@code deployed}: per service
     * name, per host, "ok" or the error.
     */
    private Reply saveWorkflow(Exchange ex) throws Exception {
        Caller caller = requireRole(ex, Role.OPERATOR);
        JsonNode b = body(ex);
        Map<String, byte[]> archives = b.has("archives") && b.get("archives").isArray() ? archives(b.get("archives")) : Map.of();
        if (!archives.isEmpty()) {
            requireRole(ex, Role.ADMIN); // archives are code the hosts will run
        }
        String project = api.access().workflowProject(text(b, "name"), caller, text(b, "project"));
        WorkflowService.Deployed d = api.workflows().save(new WorkflowService.SaveWorkflow(text(b, "name"), text(b, "document"),
                text(b, "file"), b.get("plan"), archives));
        api.access().ownWorkflow(d.name(), caller, project);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", d.name());
        m.put("version", d.version());
        m.put("created", d.created());
        m.put("deployed", d.deployed());
        return new Reply(d.created() ? 201 : 200, m);
    }

    /** {@code ?format=svg} (default; 503 with the reason when Graphviz is missing) or {@code ?format=dot}. */
    private Reply workflowGraph(Exchange ex) throws Exception {
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
    private Reply getWorkflow(Exchange ex) throws Exception {
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

    /**
     * {@code {"service": name, "archive": base64}} or {@code {"archives": [{"service", "archive"}, ...]}}:
     * stores each archive and installs it on every live host.
     */
    private Reply deploy(Exchange ex) throws Exception {
        requireToken(ex);
        JsonNode b = body(ex);
        List<JsonNode> items = new ArrayList<>();
        if (b.has("archives") && b.get("archives").isArray()) {
            b.get("archives").forEach(items::add);
        } else {
            items.add(b);
        }
        return new Reply(201, Map.of("deployed", api.deployments().deployAll(archives(items))));
    }

    /** {@code [{"service", "archive": base64}]} as archive bytes by service type. */
    private static Map<String, byte[]> archives(Iterable<JsonNode> items) throws ApiException {
        Map<String, byte[]> archives = new LinkedHashMap<>();
        for (JsonNode a : items) {
            String service = a.path("service").asText(null);
            String data = a.path("archive").asText(null);
            if (service == null || data == null) {
                throw new ApiException(400, "each deployment needs 'service' and 'archive' (base64 of the .aar)");
            }
            try {
                archives.put(service, Base64.getDecoder().decode(data));
            } catch (IllegalArgumentException e) {
                throw new ApiException(400, "archive of '" + service + "' is not base64: " + e.getMessage());
            }
        }
        return archives;
    }

    /**
     * {@code ?state&workflow&q&param&from&to&sort&order&offset&limit}: a page of runs (a JSON array, as
     * before paging existed), with the number of matching runs in the {@code X-Total-Count} header.
     */
    private Reply listRuns(Exchange ex) throws ApiException {
        String state = blankless(param(ex, "state"));
        String sort = blankless(param(ex, "sort"));
        String order = blankless(param(ex, "order"));
        if (order != null && !order.equals("asc") && !order.equals("desc")) {
            throw new ApiException(400, "order must be asc or desc, not '" + order + "'");
        }
        RunQuery query = new RunQuery(state == null ? null : state.toUpperCase(Locale.ROOT), blankless(param(ex, "workflow")),
                blankless(param(ex, "q")), blankless(param(ex, "param")), epochMs(ex, "from"), epochMs(ex, "to"),
                sort == null ? "created" : sort, order == null ? sort != null && !sort.equals("created") : order.equals("asc"),
                (int) whole(ex, "offset", 0, 0, Integer.MAX_VALUE), (int) whole(ex, "limit", 200, 1, 10_000));
        Caller caller = AccessFilter.caller(ex);
        if (!caller.allProjects()) {
            query = query.within(caller.projects());
        }
        RunListing listing = api.runs().list(query);
        return new Reply(200, new Headed(listing.runs(), Map.of("X-Total-Count", String.valueOf(listing.total()))));
    }

    private static String blankless(String s) {
        return s == null || s.isBlank() ? null : s.strip();
    }

    /** A whole-number query parameter within bounds ({@code dflt} when absent), or a 400 answer. */
    private static long whole(Exchange ex, String name, long dflt, long min, long max) throws ApiException {
        String s = blankless(param(ex, name));
        if (s == null) {
            return dflt;
        }
        try {
            long v = Long.parseLong(s);
            if (v >= min && v <= max) {
                return v;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw new ApiException(400, name + " must be a whole number from " + min + " to " + max + ", not '" + s + "'");
    }

    /** A time query parameter: epoch milliseconds or an ISO-8601 instant ({@code 2026-11-29T02:00:00Z}). */
    private static Long epochMs(Exchange ex, String name) throws ApiException {
        String s = blankless(param(ex, name));
        if (s == null) {
            return null;
        }
        if (s.chars().allMatch(Character::isDigit)) {
            return whole(ex, name, 0, 0, Long.MAX_VALUE);
        }
        try {
            return java.time.Instant.parse(s).toEpochMilli();
        } catch (java.time.format.DateTimeParseException e) {
            throw new ApiException(400, name + " must be epoch milliseconds or an ISO-8601 instant such as 2026-11-29T02:00:00Z, not '" + s + "'");
        }
    }

    /**
     * {@code {"plan": {...}} | {"workflow": name} | {"document": xml, "file": name}}, plus
     * {@code "params": {...}} and optionally {@code "archives": [{"service","archive"}]} to deploy first.
     */
    private Reply startRun(Exchange ex) throws Exception {
        Caller caller = requireRole(ex, Role.OPERATOR);
        JsonNode b = body(ex);
        if (b.has("archives")) {
            requireRole(ex, Role.ADMIN); // archives are code the hosts will run
        }
        if (text(b, "workflow") != null) {
            String name = text(b, "workflow");
            api.access().requireWorkflowVisible(caller, name.contains("@") ? name.substring(0, name.indexOf('@')) : name);
        }
        String project = api.access().projectForNew(caller, text(b, "project"));
        Map<String, Object> params = b.has("params") && b.get("params").isObject()
                ? Json.MAPPER.convertValue(b.get("params"), new TypeReference<Map<String, Object>>() { })
                : Map.of();
        Map<String, byte[]> archives = b.has("archives") && b.get("archives").isArray() ? archives(b.get("archives")) : Map.of();
        Integer restarts = null;
        if (b.hasNonNull("restarts")) {
            if (!b.get("restarts").isIntegralNumber() || !b.get("restarts").canConvertToInt() || b.get("restarts").asInt() < 0) {
                throw new ApiException(400, "'restarts' must be a whole number of at least 0");
            }
            restarts = b.get("restarts").asInt();
        }
        Run run = api.workflows().start(new WorkflowService.StartRun(b.get("plan"), text(b, "document"), text(b, "file"),
                text(b, "workflow"), params, archives, restarts, queueing(b)));
        api.access().ownRun(run.id(), caller, project);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", run.id());
        m.put("state", run.state().name());
        m.put("url", api.url().get() + "/api/runs/" + run.id());
        return new Reply(201, m);
    }

    /**
     * The run's place in the run queue: {@code "priority"} (a whole number, higher first), {@code "oversubscribe"}
     * (true: exceed hosts' capacities rather than wait), {@code "queueTimeoutS"} (0: wait as long as it takes;
     * absent: the engine's default) and {@code "sites"} (a number of sites or {@code "a,b"}: the sites to place it on;
     * absent: packed within one site while capacity allows).
     */
    private static Queueing queueing(JsonNode b) throws ApiException {
        int priority = 0;
        if (b.hasNonNull("priority")) {
            if (!b.get("priority").isIntegralNumber() || !b.get("priority").canConvertToInt()) {
                throw new ApiException(400, "'priority' must be a whole number");
            }
            priority = b.get("priority").asInt();
        }
        if (b.hasNonNull("oversubscribe") && !b.get("oversubscribe").isBoolean()) {
            throw new ApiException(400, "'oversubscribe' must be true or false");
        }
        java.time.Duration timeout = null;
        if (b.hasNonNull("queueTimeoutS")) {
            if (!b.get("queueTimeoutS").isIntegralNumber() || b.get("queueTimeoutS").asLong() < 0) {
                throw new ApiException(400, "'queueTimeoutS' must be a whole number of seconds, at least 0 (0: no bound)");
            }
            timeout = java.time.Duration.ofSeconds(b.get("queueTimeoutS").asLong());
        }
        SiteRequest sites = null;
        if (b.hasNonNull("sites")) {
            JsonNode n = b.get("sites");
            if (!n.isTextual() && !n.isIntegralNumber()) {
                throw new ApiException(400, "'sites' must be a number of sites or site names separated by commas (\"a,b\")");
            }
            sites = SiteRequest.parse(n.asText()); // a bad one: IllegalArgumentException, 400 with its message
        }
        return new Queueing(priority, b.path("oversubscribe").asBoolean(false), timeout, sites);
    }

    private Reply cancelRun(Exchange ex) throws Exception {
        requireRole(ex, Role.OPERATOR);
        RunService.Cancellation c = api.runs().cancelRun(param(ex, "id"));
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", c.runId());
        m.put("cancelled", c.cancelled());
        m.put("state", c.state());
        return Reply.ok(m);
    }

    /** A new attempt of a FAILED or CANCELLED run from its newest usable checkpoint (409 in any other state). */
    private Reply resumeRun(Exchange ex) throws Exception {
        requireRole(ex, Role.OPERATOR);
        Run run = api.runs().resume(param(ex, "id"));
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", run.id());
        m.put("state", run.state().name());
        m.put("url", api.url().get() + "/api/runs/" + run.id());
        return Reply.ok(m);
    }

    private Reply runLog(Exchange ex) throws Exception {
        long after = param(ex, "after") == null ? 0 : Long.parseLong(param(ex, "after"));
        int limit = param(ex, "limit") == null ? 10_000 : Math.min(100_000, Integer.parseInt(param(ex, "limit")));
        return Reply.ok(api.runs().log(param(ex, "id"), after, limit));
    }

    /**
     * {@code GET /api/runs/{id}/logs[?rank=N]}: every {@code <log>} line the run's ranks reported (the
     * run detail keeps only the newest 500 per rank), oldest first, as text: one line per log line,
     * {@code 2026-11-29T02:49:32.125Z rank 3 INFO message}.
     */
    private Reply runLogText(Exchange ex) throws Exception {
        String id = param(ex, "id");
        Integer rank = param(ex, "rank") == null ? null : (int) whole(ex, "rank", 0, 0, Integer.MAX_VALUE);
        StringBuilder text = new StringBuilder();
        long after = 0;
        for (;;) {
            List<RunStore.StoredEvent> page = api.runs().log(id, after, 10_000);
            for (RunStore.StoredEvent e : page) {
                JsonNode b = e.body();
                if ("rank".equals(e.type()) && "LOG".equals(b.path("type").asText()) && (rank == null || b.path("rank").asInt(-1) == rank)) {
                    text.append(java.time.Instant.ofEpochMilli(b.path("timeMs").asLong(e.timeMs()))).append(" rank ")
                            .append(b.path("rank").asInt()).append(' ')
                            .append(b.path("level").asText("info").toUpperCase(Locale.ROOT)).append(' ')
                            .append(b.path("message").asText("")).append('\n');
                }
            }
            if (page.size() < 10_000) {
                break;
            }
            after = page.get(page.size() - 1).id();
        }
        return Reply.ok(new RawText("text/plain; charset=utf-8", text.toString()));
    }

    /** One rank event or an array of them, POSTed by the ranks of a run (authorised by the domain ID). */
    private Reply rankEvents(Exchange ex) throws Exception {
        JsonNode b = body(ex);
        List<RankEvent> events = new ArrayList<>();
        try {
            if (b.isArray()) {
                for (JsonNode n : b) {
                    events.add(Json.MAPPER.treeToValue(n, RankEvent.class));
                }
            } else {
                events.add(Json.MAPPER.treeToValue(b, RankEvent.class));
            }
        } catch (IOException e) {
            throw new ApiException(400, "not a rank event: " + e.getMessage());
        }
        api.runs().rankEvents(param(ex, "id"), events);
        return new Reply(204, null);
    }

    /**
     * The registry's hosts as JSON, each with {@code quarantine}: {@code null}, or why and until when
     * the engine places no ranks there ({@code active} false once it ended; the offences stay on
     * record until the host accepts work again).
     */
    private List<Map<String, Object>> hostViews() {
        List<Map<String, Object>> out = new ArrayList<>();
        for (HostInfo h : api.registry().hosts()) {
            Map<String, Object> m = Json.MAPPER.convertValue(h, new TypeReference<LinkedHashMap<String, Object>>() { });
            m.put("relay", api.registry().relays().relayOf(h.hostId()).orElse(null));
            m.put("quarantine", api.registry().quarantine(h.hostId()).map(q -> {
                Map<String, Object> v = new LinkedHashMap<>();
                v.put("active", api.registry().quarantined(h.hostId()));
                v.put("reason", q.reason());
                v.put("sinceMs", q.sinceMs());
                v.put("untilMs", q.untilMs());
                v.put("offences", q.offences());
                return v;
            }).orElse(null));
            out.add(m);
        }
        return out;
    }

    private Reply announce(Exchange ex) throws Exception {
        String own = requireHost(ex);
        HostAnnouncement a;
        JsonNode raw = body(ex);
        try {
            a = Json.MAPPER.treeToValue(raw, HostAnnouncement.class);
        } catch (IOException e) {
            throw new ApiException(400, "not a host announcement: " + e.getMessage());
        }
        if (a.hostId() != null && !a.hostId().isBlank() && !a.hostId().equals(own)) {
            throw new ApiException(403, "this credential speaks for host '" + own + "', not '" + a.hostId() + "'");
        }
        a = new HostAnnouncement(own, a.soapUrl(), a.binaryAddress(), a.services(), a.capacity(), a.deployUrl(),
                a.oversubscribe(), a.instance(), a.site());
        Map<String, Object> m = new LinkedHashMap<>();
        if (api.registry().relays().isRelay(own)) {
            throw new ApiException(409, "'" + own + "' is registered as a relay: a host needs a credential of its own");
        }
        HostInfo registered = api.registry().announce(a);
        // a host that holds a connection to a relay accepts none from outside its site: the engine calls it there
        api.registry().relays().hostUses(registered, raw.path("relay").asText(null));
        m.put("host", registered);
        m.put("heartbeatIntervalMs", api.registry().heartbeatInterval().toMillis());
        // the host gives up its ranks when it has not reached the engine for this long (the engine gave up on it)
        m.put("heartbeatTimeoutMs", api.registry().heartbeatTimeout().toMillis());
        // ... unless the engine itself is what went away: then the ranks run on this long, so that a
        // restarted engine re-attaches to them (docs/durability.md)
        m.put("engineLossGraceMs", api.registry().engineLossGrace().toMillis());
        return new Reply(201, m);
    }

    private Reply heartbeat(Exchange ex) throws ApiException {
        String id = param(ex, "hostId");
        requireHostSpeakingFor(ex, id);
        if (!api.registry().heartbeat(id)) {
            throw new ApiException(404, "unknown host '" + id + "': announce again");
        }
        return new Reply(204, null);
    }
}
