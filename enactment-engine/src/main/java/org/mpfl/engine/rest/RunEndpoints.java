package org.mpfl.engine.rest;

import static org.mpfl.engine.rest.Requests.blankless;
import static org.mpfl.engine.rest.Requests.body;
import static org.mpfl.engine.rest.Requests.epochMs;
import static org.mpfl.engine.rest.Requests.param;
import static org.mpfl.engine.rest.Requests.requireRole;
import static org.mpfl.engine.rest.Requests.requireTypes;
import static org.mpfl.engine.rest.Requests.text;
import static org.mpfl.engine.rest.Requests.whole;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.stream.Stream;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.camel.Exchange;
import org.mpfl.engine.access.Caller;
import org.mpfl.engine.access.Role;
import org.mpfl.engine.json.Json;
import org.mpfl.engine.rest.EngineRoutes.Api;
import org.mpfl.engine.rest.EngineRoutes.Headed;
import org.mpfl.engine.rest.EngineRoutes.RawText;
import org.mpfl.engine.rest.EngineRoutes.Reply;
import org.mpfl.engine.run.EndedRunEventException;
import org.mpfl.engine.run.ForeignEventException;
import org.mpfl.engine.run.IntakeRefused;
import org.mpfl.engine.run.Queueing;
import org.mpfl.engine.run.RankEventIntake;
import org.mpfl.engine.run.Run;
import org.mpfl.engine.run.RunListing;
import org.mpfl.engine.run.RunService;
import org.mpfl.engine.run.RunState;
import org.mpfl.engine.run.SiteRequest;
import org.mpfl.engine.run.UnknownRunException;
import org.mpfl.engine.store.RunQuery;
import org.mpfl.engine.store.RunStore;
import org.mpfl.engine.workflow.WorkflowService;
import org.mpfl.protocol.EngineRefusal;
import org.mpfl.protocol.RankEvent;
import org.mpfl.protocol.RankEventPost;

/**
 * Runs: {@code /api/runs} (a page of them, and starting one), a run's detail, log, log text and trace,
 * cancel and resume, and the rank events a run's ranks post (authorised by the run's unguessable domain
 * ID, not by a user). Which runs a caller sees the {@link AccessFilter} decided before a handler runs;
 * a listing is narrowed here to the caller's projects.
 */
final class RunEndpoints {
    private final Api api;

    RunEndpoints(Api api) {
        this.api = api;
    }

    Reply detail(Exchange ex) throws ApiException {
        return Reply.ok(RunDetails.of(param(ex, "id"), api.runs(), api.access())
                .orElseThrow(() -> new ApiException(404, "no run '" + param(ex, "id") + "'")));
    }

    Reply trace(Exchange ex) throws Exception {
        return Reply.ok(api.runs().trace(param(ex, "id")));
    }

    /**
     * {@code ?state&workflow&project&q&param&from&to&sort&order&offset&limit}: a page of runs (a JSON array, as
     * before paging existed), with the number of matching runs in the {@code X-Total-Count} header.
     */
    Reply list(Exchange ex) throws ApiException {
        String state = blankless(param(ex, "state"));
        if (state != null && java.util.Arrays.stream(RunState.values()).noneMatch(s -> s.name().equalsIgnoreCase(state))) {
            // a misspelt state would match nothing and read as "no such runs"
            throw new ApiException(400, "no run state '" + state + "'; one of " + java.util.Arrays.stream(RunState.values())
                    .map(Enum::name).collect(java.util.stream.Collectors.joining(", ")));
        }
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
        String project = blankless(param(ex, "project"));
        if (project != null) {
            // a project the caller cannot see lists nothing, as one without runs does: nothing tells the two apart
            query = query.within(caller.allProjects() || caller.projects().contains(project) ? Set.of(project) : Set.of());
        } else if (!caller.allProjects()) {
            query = query.within(caller.projects());
        }
        RunListing listing = api.runs().list(query);
        return new Reply(200, new Headed(listing.runs(), Map.of("X-Total-Count", String.valueOf(listing.total()))));
    }

    /**
     * {@code {"plan": {...}} | {"workflow": name} | {"document": xml, "file": name}}, plus
     * {@code "params": {...}} and optionally {@code "archives": [{"service","archive"}]} to deploy first.
     */
    Reply start(Exchange ex) throws Exception {
        Caller caller = requireRole(ex, Role.OPERATOR);
        JsonNode b = body(ex);
        requireTypes(b, List.of("document", "file", "workflow", "project"), List.of("params"), List.of("archives"));
        List<String> what = Stream.of("plan", "document", "workflow").filter(b::hasNonNull).toList();
        if (what.size() > 1) {
            // one was run and the other ignored without a word: a document sent with a stored workflow's name ran
            // the document
            throw new ApiException(400, "give exactly one of 'plan', 'document' or 'workflow', not '" + String.join("' and '", what) + "'");
        }
        if (b.has("archives")) {
            Requests.requireArchiveSender(ex);
        }
        String workflow = text(b, "workflow");
        if (workflow != null) {
            workflow = workflow.contains("@") ? workflow.substring(0, workflow.indexOf('@')) : workflow;
            api.access().requireWorkflowVisible(caller, workflow);
        }
        String project = api.access().projectForRun(caller, text(b, "project"), workflow);
        Map<String, Object> params = b.has("params") && b.get("params").isObject()
                ? Json.MAPPER.convertValue(b.get("params"), new TypeReference<Map<String, Object>>() { })
                : Map.of();
        Map<String, byte[]> archives = b.has("archives") && b.get("archives").isArray() ? WorkflowEndpoints.archives(b.get("archives")) : Map.of();
        Integer restarts = null;
        if (b.hasNonNull("restarts")) {
            if (!b.get("restarts").isIntegralNumber() || !b.get("restarts").canConvertToInt() || b.get("restarts").asInt() < 0) {
                throw new ApiException(400, "'restarts' must be a whole number of at least 0");
            }
            restarts = b.get("restarts").asInt();
        }
        // a run is placed only on its project's services; a run of a stored workflow on that workflow's (its record names
        // them, not the caller), which are its project's even when a member of it runs the workflow into another project
        String services = workflow == null ? project : api.access().workflowProjectOf(workflow).orElse(project);
        Run run = api.workflows().start(new WorkflowService.StartRun(b.get("plan"), text(b, "document"), text(b, "file"),
                text(b, "workflow"), params, archives, restarts, queueing(b)), services);
        api.access().ownRun(run.id(), caller, project);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", run.id());
        m.put("state", run.state().name());
        m.put("url", api.url().get() + "/api/runs/" + run.id());
        // Location: what was created, which the audit trail records with the request
        return new Reply(201, new EngineRoutes.Headed(m, Map.of("Location", "/api/runs/" + run.id())));
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

    Reply cancel(Exchange ex) throws Exception {
        Caller caller = requireRole(ex, Role.OPERATOR);
        // a user is named in the run's error; the admin token names nobody
        RunService.Cancellation c = api.runs().cancelRun(param(ex, "id"), cancelReason(ex),
                caller.kind() == Caller.Kind.USER ? caller.name() : null);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", c.runId());
        m.put("cancelled", c.cancelled());
        m.put("state", c.state());
        return Reply.ok(m);
    }

    /** The {@code reason} of a cancel's optional body {@code {"reason": "…"}}: one line of at most 200 characters. */
    private static String cancelReason(Exchange ex) throws ApiException {
        JsonNode body = Requests.optionalBody(ex);
        if (body == null) {
            return null;
        }
        String reason = blankless(Requests.text(body, "reason"));
        if (reason != null && (reason.length() > 200 || reason.chars().anyMatch(Character::isISOControl))) {
            throw new ApiException(400, "reason must be one line of at most 200 characters");
        }
        return reason;
    }

    /** A new attempt of a FAILED or CANCELLED run from its newest usable checkpoint (409 in any other state). */
    Reply resume(Exchange ex) throws Exception {
        requireRole(ex, Role.OPERATOR);
        Run run = api.runs().resume(param(ex, "id"));
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", run.id());
        m.put("state", run.state().name());
        m.put("url", api.url().get() + "/api/runs/" + run.id());
        return Reply.ok(m);
    }

    /**
     * {@code GET /api/runs/{id}/log?after&limit}: the run's stored events after event {@code after}, at most
     * {@code limit} (a larger limit is served as 100,000). Out of range is 400: a negative limit used to reach the
     * database and come back as a 500 carrying its SQL.
     */
    Reply log(Exchange ex) throws Exception {
        long after = whole(ex, "after", 0, 0, Long.MAX_VALUE);
        int limit = (int) Math.min(100_000, whole(ex, "limit", 10_000, 1, Integer.MAX_VALUE));
        return Reply.ok(api.runs().log(param(ex, "id"), after, limit));
    }

    /**
     * {@code GET /api/runs/{id}/logs[?rank=N]}: every {@code <log>} line the run's ranks reported (the
     * run detail keeps only the newest 500 per rank), oldest first, as text: one line per log line,
     * {@code 2026-11-29T02:49:32.125Z rank 3 INFO message}. A rank the placed run does not have is 400 naming the
     * ranks it has: an empty answer would say that rank logged nothing.
     */
    Reply logText(Exchange ex) throws Exception {
        String id = param(ex, "id");
        Integer rank = param(ex, "rank") == null ? null : (int) whole(ex, "rank", 0, 0, Integer.MAX_VALUE);
        int size = api.runs().detail(id).map(d -> d.path("size").asInt(0)).orElse(0);
        if (rank != null && size > 0 && rank >= size) {
            // size is 0 until the ranks are placed (and in records older than it): nothing to check against then
            throw new ApiException(400, "run " + id + " has " + (size == 1 ? "only rank 0" : "ranks 0-" + (size - 1))
                    + "; there is no rank " + rank);
        }
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

    /**
     * One rank event or an array of them, POSTed by the ranks of a run ({@link RankEventPost}): admitted
     * from its headers ahead of this route ({@link RankEventAdmission}) and again here, before the body is
     * taken (nothing reaches the run that did not pass the check, whichever way it came); the body must
     * match the admitted SHA-256 and every event the admitted domain. A refusal that ends the domain for the
     * engine — no such run (404), a domain not the run's (403), a run that ended FAILED or CANCELLED (410) —
     * carries the engine's {@link EngineRefusal} mark: on it alone the host stops the domain's ranks. A post the
     * engine will never take as it is (400: malformed headers or body, a body that does not match its SHA-256;
     * 401: missing headers) carries {@link EngineRefusal#BATCH_REJECTED}: on it alone the host drops the batch
     * (any other answer without a mark is kept and sent again).
     */
    Reply rankEvents(Exchange ex) throws Exception {
        try {
            return takeRankEvents(ex);
        } catch (IntakeRefused e) {
            if (e.mark().isEmpty()) {
                throw new ApiException(e.status(), e.getMessage());
            }
            return refusal(e.status(), e.mark().get(), e.getMessage());
        } catch (UnknownRunException e) {
            return refusal(EngineRefusal.DOMAIN_UNKNOWN, e.getMessage());
        } catch (ForeignEventException e) {
            return refusal(EngineRefusal.DOMAIN_FOREIGN, e.getMessage());
        } catch (EndedRunEventException e) {
            return refusal(EngineRefusal.DOMAIN_ENDED, e.getMessage());
        }
    }

    /** The engine's answer to a rank's post when the domain is over for it or the batch is rejected: the status, the mark and why. */
    private static Reply refusal(EngineRefusal mark, String message) {
        return refusal(mark.status(), mark, message);
    }

    private static Reply refusal(int status, EngineRefusal mark, String message) {
        return new Reply(status, new Headed(Map.of("error", message), Map.of(EngineRefusal.HEADER, mark.value())));
    }

    private Reply takeRankEvents(Exchange ex) throws Exception {
        RankEventIntake intake = api.runs().eventIntake();
        List<RankEvent> events = new ArrayList<>();
        RankEventIntake.Admission admitted = intake.admit(param(ex, "id"), param(ex, RankEventPost.DOMAIN_HEADER),
                param(ex, RankEventPost.SHA256_HEADER), param(ex, RankEventPost.PROOF_HEADER));
        byte[] raw = ex.getIn().getBody(byte[].class);
        raw = raw == null ? new byte[0] : raw;
        intake.checkBody(admitted, raw);
        JsonNode b;
        try {
            b = Json.MAPPER.readTree(raw);
        } catch (IOException e) {
            throw IntakeRefused.rejected(400, Requests.notJson(e));
        }
        if (b == null || b.isMissingNode()) {
            throw IntakeRefused.rejected(400, "a JSON body is required");
        }
        try {
            if (b.isArray()) {
                for (JsonNode n : b) {
                    events.add(Json.MAPPER.treeToValue(n, RankEvent.class));
                }
            } else {
                events.add(Json.MAPPER.treeToValue(b, RankEvent.class));
            }
        } catch (IOException e) {
            throw IntakeRefused.rejected(400, Requests.notA("not a rank event", e));
        }
        intake.checkDomains(admitted, events);
        if (admitted.late()) {
            // the last lines of ranks the run gave up: kept; the post is refused as before, so the host stops them
            api.runs().lateLogLines(admitted.runId(), events);
            throw RankEventIntake.foreign(admitted.runId(), admitted.domainId());
        }
        api.runs().rankEvents(param(ex, "id"), events);
        return new Reply(204, null);
    }
}
