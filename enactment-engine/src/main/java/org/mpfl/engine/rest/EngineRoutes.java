package org.mpfl.engine.rest;

import java.io.IOException;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.mpfl.ir.spi.WorkflowCompiler;
import org.mpfl.engine.access.AccessDenied;
import org.mpfl.engine.access.AccessPolicy;
import org.mpfl.engine.capacity.CapacityManager;
import org.mpfl.engine.deploy.DeploymentService;
import org.mpfl.engine.deploy.EngineStorageException;
import org.mpfl.engine.json.Json;
import org.mpfl.engine.registry.HostCredentials;
import org.mpfl.engine.registry.HostRegistry;
import org.mpfl.engine.run.ForeignEventException;
import org.mpfl.engine.run.ResumeRefusedException;
import org.mpfl.engine.run.RunService;
import org.mpfl.engine.run.UnknownRunException;
import org.mpfl.engine.workflow.WorkflowService;
import org.mpfl.protocol.EngineRefusal;

/**
 * The REST API of the engine as Camel REST DSL routes on platform-http (Vert.x): the route table, and
 * the one place where an endpoint's answer or exception becomes a status and a JSON body. The endpoints
 * live by resource: {@link WorkflowEndpoints} (engine, OpenAPI, workflows, deployments),
 * {@link RunEndpoints} (runs and rank events), {@link RegistryEndpoints} (hosts, credentials, relays) and
 * {@link CapacityEndpoints} (the capacity provider's jobs);
 * each checks what only the request tells, reads it through {@link Requests} and calls one use case of
 * {@link WorkflowService}, {@link RunService}, {@link DeploymentService} or {@link HostRegistry}.
 * Mutating endpoints demand a bearer token with the role they need (401/403 otherwise); rank events are
 * authorised by their domain token's proof instead ({@link RankEventAdmission}, before the body is read);
 * the registry is closed (host credentials).
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
     * @param capacity     the jobs of the capacity provider ({@code mpflc up --provider slurm}), or {@code null} without one
     */
    public record Api(Supplier<String> url, String token, HostRegistry registry, HostCredentials credentials, RunService runs,
                      WorkflowService workflows, DeploymentService deployments, AccessPolicy access, CapacityManager capacity) {
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
                .get("/registry/hosts/{hostId}").to(direct("hosts-get"))
                .delete("/registry/hosts/{hostId}").to(direct("hosts-remove"))
                .get("/registry/credentials").to(direct("credentials-list"))
                .post("/registry/credentials").to(direct("credentials-issue"))
                .delete("/registry/credentials/{id}").to(direct("credentials-revoke"))
                .get("/registry/relays").to(direct("relays-list"))
                .post("/registry/relays").to(direct("relays-announce"))
                .post("/registry/relays/verify").to(direct("relays-verify"))
                .post("/registry/relays/check").to(direct("relays-check"))
                .get("/capacity").to(direct("capacity"));

        WorkflowEndpoints workflows = new WorkflowEndpoints(api);
        RunEndpoints runs = new RunEndpoints(api);
        RegistryEndpoints registry = new RegistryEndpoints(api);
        handle("engine-info", workflows::engineInfo);
        handle("openapi", workflows::openApi);
        handle("workflows-list", workflows::list);
        handle("workflows-save", workflows::save);
        handle("workflows-get", workflows::get);
        handle("workflows-graph", workflows::graph);
        handle("deployments-list", workflows::services);
        handle("deployments-create", workflows::deploy);
        handle("runs-list", runs::list);
        handle("runs-start", runs::start);
        handle("runs-get", runs::detail);
        handle("runs-cancel", runs::cancel);
        handle("runs-resume", runs::resume);
        handle("runs-log", runs::log);
        handle("runs-logs-text", runs::logText);
        handle("runs-trace", runs::trace);
        handle("rank-events", runs::rankEvents);
        handle("hosts-list", registry::hosts);
        handle("hosts-announce", registry::announce);
        handle("hosts-heartbeat", registry::heartbeat);
        handle("hosts-get", registry::host);
        handle("hosts-remove", registry::remove);
        handle("credentials-list", registry::credentials);
        handle("credentials-issue", registry::issueCredential);
        handle("credentials-revoke", registry::revoke);
        handle("relays-list", registry::relays);
        handle("relays-announce", registry::announceRelay);
        handle("relays-verify", registry::verifyAtRelay);
        handle("relays-check", registry::checkAtRelay);
        handle("capacity", new CapacityEndpoints(api)::capacity);
    }

    /** A failure of the engine itself: its text stays in the log, the client gets the incident's id. */
    private static Reply incident(String name, Exception e) {
        return new Reply(500, Incidents.report("api-" + name, e).body());
    }

    private static String direct(String name) {
        return "direct:api-" + name;
    }

    private void handle(String name, Handler h) {
        from(direct(name)).routeId("api-" + name).process(ex -> {
            Reply reply;
            String challenge = null;
            try {
                reply = h.handle(ex);
            } catch (ApiException e) {
                challenge = e.challenge().orElse(null);
                // a refusal a host or relay acts on for good carries the engine's mark, telling it from a proxy's answer
                reply = new Reply(e.status(), e.mark().<Object>map(m -> new Headed(Map.of("error", e.getMessage()),
                        Map.of(EngineRefusal.HEADER, m.value()))).orElse(Map.of("error", e.getMessage())));
            } catch (AccessDenied e) {
                challenge = e.challenge().orElse(null);
                reply = new Reply(e.status(), Map.of("error", e.getMessage()));
            } catch (WorkflowCompiler.CompileException e) {
                reply = new Reply(422, Map.of("error", "the document has static errors:\n" + e.getMessage()));
            } catch (WorkflowService.UnvaluedParamsException e) {
                reply = new Reply(422, Map.of("error", e.getMessage()));
            } catch (WorkflowService.UnknownWorkflowException e) {
                reply = new Reply(404, Map.of("error", e.getMessage()));
            } catch (ForeignEventException e) {
                reply = new Reply(403, Map.of("error", e.getMessage()));
            } catch (org.mpfl.engine.run.EndedRunEventException e) {
                reply = new Reply(410, Map.of("error", e.getMessage()));
            } catch (org.mpfl.engine.deploy.DeploymentService.ServiceTakenException e) {
                reply = new Reply(409, Map.of("error", e.getMessage()));
            } catch (EngineStorageException e) {
                // the engine's own storage failed, not the client's request: an incident (the message names the engine's path)
                reply = incident(name, e);
            } catch (IllegalArgumentException | IOException e) {
                reply = new Reply(400, Map.of("error", e.getMessage() == null ? e.toString() : e.getMessage()));
            } catch (UnknownRunException e) {
                reply = new Reply(404, Map.of("error", e.getMessage()));
            } catch (ResumeRefusedException e) {
                reply = new Reply(409, Map.of("error", e.getMessage()));
            } catch (Exception e) {
                // the exception's text stays in the log: it names classes, SQL and paths
                reply = incident(name, e);
            }
            boolean unauthorised = reply.status() == 401;
            // request headers must not echo into the response (Authorization above all)
            ex.getMessage().removeHeaders("*");
            ex.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, reply.status());
            if (challenge != null) {
                // e.g. a role too low for what the body asks: the challenge the access filter's 403s carry (RFC 6750)
                ex.getMessage().setHeader("WWW-Authenticate", challenge);
            } else if (unauthorised) {
                ex.getMessage().setHeader("WWW-Authenticate", AccessDenied.challenge(null, null));
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
}
