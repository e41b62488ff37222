package org.mpfl.engine.access;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.mpfl.engine.store.AccessStore;

/**
 * Who may do what on which REST route, in one place (docs/security.md has the same table for people).
 * {@link #target} classifies a request by method and path alone, before anything of its body is read;
 * {@link #admit} authenticates its {@code Authorization} header and decides. A run or workflow of a
 * project the caller does not belong to answers 404 on every route that names it, exactly as one that
 * does not exist. Routes this table does not know are reads for viewers ({@code GET}) and admin-only
 * otherwise, so a route added later is closed until it is placed here.
 */
public final class AccessPolicy {
    /** What a route needs. */
    public enum Need {
        /** Anyone, with or without a credential (the console's login routes, {@code /api/session/*}). */
        PUBLIC,
        /**
         * Anyone ({@code GET /api/auth}: how to log in, and who one is); but a credential the caller sent in
         * its {@code Authorization} header is refused with the reason when it proves nothing: a caller who sent
         * one wants to know it was refused ({@code mpflc login}), not to be answered as a stranger.
         */
        IDENTITY,
        /**
         * Authorised by the run's domain token (rank events, checkpoint parts): their own Vert.x handlers check
         * its proof from the headers before the body is read ({@code RankEventAdmission}, {@code CheckpointUploads}).
         */
        DOMAIN,
        /** A host credential (the registry routes check which host) or the admin token. */
        HOST_OR_ADMIN,
        /** Anyone who may read at all (engine info, the OpenAPI document). */
        READ,
        VIEWER,
        OPERATOR,
        ADMIN,
        /**
         * Admins; and anyone on a local engine (loopback, no issuer: {@code mpflc up}, {@code run --local}),
         * whose console shows the registry without a login as before.
         */
        ADMIN_OR_LOCAL
    }

    /**
     * A request as the policy sees it.
     *
     * @param need     what it needs
     * @param runId    the run it names, or {@code null}
     * @param workflow the workflow it names (without {@code @VERSION}), or {@code null}
     * @param audited  whether it changes something and so goes to the audit trail
     * @param refusalsOnly whether only its refusals go there ({@link #audits}), at most one a minute per caller, route and
     *                 status ({@link Audit#recordRefusal}): a host's heartbeat and a relay's checks of hosts' proofs and
     *                 credentials, every few seconds, whose answers change nothing, while a refusal is worth an admin's look
     *                 (and one that beats on refused must not flood the trail)
     */
    public record Target(Need need, String runId, String workflow, boolean audited, boolean refusalsOnly) {
        /** A request whose every answer is on the trail when {@code audited}. */
        public Target(Need need, String runId, String workflow, boolean audited) {
            this(need, runId, workflow, audited, false);
        }

        /** Whether its answer with HTTP {@code status} goes to the audit trail. */
        public boolean audits(int status) {
            return audited && (!refusalsOnly || status >= 400);
        }
    }

    private static final Pattern RUN = Pattern.compile("^/api/runs/([^/]+)(/.*)?$");
    private static final Pattern WORKFLOW = Pattern.compile("^/api/workflows/([^/]+)(/.*)?$");
    private static final Pattern HOST_ROUTES = Pattern.compile(
            "^/api/registry/(hosts(/[^/]+(/heartbeat)?)?|relays(/verify|/check)?)$");

    /** Classifies a request by method and path. */
    public static Target target(String method, String path) {
        String p = path.endsWith("/") && path.length() > 1 ? path.substring(0, path.length() - 1) : path;
        boolean read = method.equals("GET") || method.equals("HEAD") || method.equals("OPTIONS");
        Matcher run = RUN.matcher(p);
        if (run.matches()) {
            String rest = run.group(2) == null ? "" : run.group(2);
            if (rest.equals("/ranks/events") || rest.equals("/ranks/checkpoints")) {
                return new Target(Need.DOMAIN, null, null, false);
            }
            return new Target(read ? Need.VIEWER : Need.OPERATOR, run.group(1), null, !read);
        }
        Matcher wf = WORKFLOW.matcher(p);
        if (wf.matches()) {
            String name = wf.group(1);
            int at = name.indexOf('@');
            return new Target(read ? Need.VIEWER : Need.OPERATOR, null, at < 0 ? name : name.substring(0, at), !read);
        }
        if (HOST_ROUTES.matcher(p).matches() && !read) {
            // a relay's announcement is on the trail as a host's is (taken or refused); a heartbeat (a host's keep-alive
            // every second or so, not a change anyone audits) and a relay's checks of hosts' proofs and credentials (every
            // few seconds) when refused only, bounded
            boolean frequent = p.endsWith("/heartbeat") || p.equals("/api/registry/relays/verify") || p.equals("/api/registry/relays/check");
            return new Target(Need.HOST_OR_ADMIN, null, null, true, frequent);
        }
        if ((p.equals("/api/registry/hosts") || p.equals("/api/deployments") || p.equals("/api/capacity")) && read) {
            // the services installed on the hosts name every project's workflows (NAME.vN.TYPE): not for one project's users;
            // the capacity provider's jobs are the hosts still on their way, read as the hosts are
            return new Target(Need.ADMIN_OR_LOCAL, null, null, false);
        }
        if (HOST_ROUTES.matcher(p).matches() && p.startsWith("/api/registry/hosts/") && !p.endsWith("/heartbeat") && read) {
            // one host's own entry: the host's credential (checked by the endpoint to be that host's) or the admin token
            return new Target(Need.HOST_OR_ADMIN, null, null, false);
        }
        if (p.startsWith("/api/registry") || p.equals("/api/audit") || p.equals("/api/deployments")) {
            return new Target(Need.ADMIN, null, null, !read);
        }
        if (p.equals("/api/auth") && read) {
            return new Target(Need.IDENTITY, null, null, false);
        }
        if (p.startsWith("/api/session/") && (read || p.equals("/api/session/logout"))) {
            // logout is a POST (no other site's link or image ends a session); it needs no credential either
            return new Target(Need.PUBLIC, null, null, false);
        }
        if (p.equals("/api/engine") || p.equals("/api/openapi")) {
            return new Target(read ? Need.READ : Need.ADMIN, null, null, !read);
        }
        if (p.equals("/api/runs") || p.equals("/api/workflows")) {
            return new Target(read ? Need.VIEWER : Need.OPERATOR, null, null, !read);
        }
        return new Target(read ? Need.VIEWER : Need.ADMIN, null, null, !read);
    }

    private final byte[] adminAuthorization;
    private final Function<String, Optional<String>> hosts;
    private final OidcVerifier users;
    private final boolean anonymousRead;
    private final boolean local;
    private final AccessStore store;

    /**
     * @param adminToken the engine's admin token
     * @param hosts      the host id a {@code Authorization} header's host credential speaks for
     * @param users         the OpenID Connect verifier, {@code null} without an issuer
     * @param anonymousRead whether reads were opened to anyone on purpose ({@code --anonymous-read})
     * @param local         whether this is a local engine (loopback, no issuer): its reads and registry view are open
     *                      too, except to a request a reverse proxy forwarded (whoever reaches the proxy is not local)
     * @param store         projects and owners of runs and workflows
     */
    public AccessPolicy(String adminToken, Function<String, Optional<String>> hosts, OidcVerifier users, boolean anonymousRead,
                        boolean local, AccessStore store) {
        this.adminAuthorization = ("Bearer " + adminToken).getBytes(StandardCharsets.UTF_8);
        this.hosts = hosts;
        this.users = users;
        this.anonymousRead = anonymousRead;
        this.local = local && users == null;
        this.store = store;
    }

    /**
     * Whether reads need no credential for a request; {@code proxied}: whether a reverse proxy forwarded it (it names
     * the client it came from: {@code Forwarded}, {@code X-Forwarded-For} …). A local engine behind a proxy sees every
     * request come from loopback; its reads are open to its own machine, not to whoever reaches the proxy.
     */
    public boolean openReads(boolean proxied) {
        return anonymousRead || local && !proxied;
    }

    /** The OpenID Connect verifier, empty when no issuer is configured. */
    public Optional<OidcVerifier> users() {
        return Optional.ofNullable(users);
    }

    /**
     * Authenticates a request and decides whether it may go on. May block (a token's key set, the
     * owner of a run): call it off the event loop.
     *
     * @return the caller, to be handed to the route
     */
    public Caller admit(String authorization, Target t) throws AccessDenied {
        return admit(authorization, authorization != null, t, false);
    }

    /**
     * As {@link #admit(String, Target)}; {@code sentByCaller}: whether the credential came in the request's
     * {@code Authorization} header rather than from a console session (whose stale token leaves the
     * console's {@code GET /api/auth} anonymous, so that it offers to log in again); {@code proxied}: whether a reverse
     * proxy forwarded the request ({@link #openReads(boolean)}).
     */
    public Caller admit(String authorization, boolean sentByCaller, Target t, boolean proxied) throws AccessDenied {
        if (t.need() == Need.DOMAIN) {
            return Caller.nobody();
        }
        if (t.need() == Need.IDENTITY && sentByCaller) {
            return authenticate(authorization, proxied);
        }
        if (t.need() == Need.PUBLIC || t.need() == Need.IDENTITY) {
            try {
                return authorization == null ? Caller.nobody() : authenticate(authorization, proxied);
            } catch (AccessDenied d) {
                return Caller.nobody();
            }
        }
        Caller c = authenticate(authorization, proxied);
        try {
            return authorize(c, t, proxied);
        } catch (AccessDenied d) {
            // a stranger's refusal names nobody, so it stays off the audit trail
            throw c.kind() == Caller.Kind.ANONYMOUS ? d : d.of(c);
        }
    }

    private Caller authorize(Caller c, Target t, boolean proxied) throws AccessDenied {
        switch (t.need()) {
            case HOST_OR_ADMIN -> {
                boolean admin = c.kind() == Caller.Kind.ADMIN_TOKEN || c.kind() == Caller.Kind.USER && c.role() == Role.ADMIN;
                if (c.kind() == Caller.Kind.ANONYMOUS) {
                    throw new AccessDenied(401, "the registry's host routes need a host credential (or an admin)");
                }
                if (c.kind() != Caller.Kind.HOST && !admin) {
                    throw AccessDenied.roleTooLow("the registry's host routes need a host credential or the admin role; " + c.name()
                            + " is " + c.role().name().toLowerCase(Locale.ROOT));
                }
                return c;
            }
            case READ -> {
                return c;
            }
            case ADMIN_OR_LOCAL -> {
                if (local && !proxied && c.kind() == Caller.Kind.ANONYMOUS) {
                    return c;
                }
                t = new Target(Need.ADMIN, t.runId(), t.workflow(), t.audited(), t.refusalsOnly());
            }
            default -> {
            }
        }
        if (c.kind() == Caller.Kind.HOST) {
            // not a credential anywhere but the registry's host routes: as if none were given
            throw AccessDenied.invalidToken("a host credential only speaks for its host in the registry");
        }
        Role needed = Role.valueOf(t.need().name());
        if (!c.role().includes(needed)) {
            if (c.kind() == Caller.Kind.ANONYMOUS) {
                throw new AccessDenied(401, "this request needs 'Authorization: Bearer <token>'");
            }
            throw AccessDenied.roleTooLow("this needs the " + needed.name().toLowerCase(Locale.ROOT) + " role; " + c.name() + " is "
                    + c.role().name().toLowerCase(Locale.ROOT));
        }
        if (t.runId() != null) {
            requireRunVisible(c, t.runId());
        }
        if (t.workflow() != null) {
            requireWorkflowVisible(c, t.workflow());
        }
        return c;
    }

    private Caller authenticate(String authorization, boolean proxied) throws AccessDenied {
        if (authorization == null || authorization.isBlank()) {
            if (openReads(proxied)) {
                return Caller.anonymousReader();
            }
            throw new AccessDenied(401, "this request needs 'Authorization: Bearer <token>'");
        }
        String auth = authorization.strip();
        if (MessageDigest.isEqual(auth.getBytes(StandardCharsets.UTF_8), adminAuthorization)) {
            return Caller.adminToken();
        }
        String bearer = auth.regionMatches(true, 0, "Bearer ", 0, 7) ? auth.substring(7).strip() : "";
        if (users != null && bearer.chars().filter(ch -> ch == '.').count() == 2) {
            try {
                return users.verify(bearer);
            } catch (OidcVerifier.TokenRefused e) {
                throw e.unavailable() ? new AccessDenied(503, e.getMessage()) : AccessDenied.invalidToken(e.getMessage());
            }
        }
        Optional<String> host = hosts.apply(auth);
        if (host.isPresent()) {
            return Caller.host(host.get());
        }
        throw AccessDenied.invalidToken(users == null ? "wrong engine token" : "not a valid token or credential");
    }

    /** 404 unless the caller sees the run's project (a run without a recorded owner: admins only). */
    public void requireRunVisible(Caller c, String runId) throws AccessDenied {
        if (!c.allProjects() && !store.runOwner(runId).map(o -> c.sees(o.project())).orElse(false)) {
            throw new AccessDenied(404, "no run '" + runId + "'");
        }
    }

    /** 404 unless the caller sees the workflow's project. */
    public void requireWorkflowVisible(Caller c, String name) throws AccessDenied {
        if (!c.allProjects() && !store.workflowOwner(name).map(o -> c.sees(o.project())).orElse(false)) {
            throw new AccessDenied(404, "no workflow '" + name + "'");
        }
    }

    /** The project and owner of a run, if recorded (runs from before projects existed have none). */
    public Optional<AccessStore.Ownership> runOwnership(String runId) {
        return store.runOwner(runId);
    }

    /**
     * The refusal of a console session's mutation sent from another site's page, attributed to the session's user so
     * that it is on the audit trail: it is an attempt to act as that user (cross-site request forgery).
     *
     * @param authorization the session's bearer token, as {@code Bearer …}, or {@code null} for an ended session
     */
    public AccessDenied foreignOriginRefusal(String authorization) {
        AccessDenied refusal = new AccessDenied(403, "a console session acts only from the console's own page");
        if (authorization == null) {
            return refusal;
        }
        try {
            return refusal.of(authenticate(authorization, false));
        } catch (AccessDenied e) {
            return refusal; // an ended or refused login: nobody to name
        }
    }

    /** Whether the caller sees a run (for lists). */
    public boolean seesRun(Caller c, String runId) {
        return c.allProjects() || store.runOwner(runId).map(o -> c.sees(o.project())).orElse(false);
    }

    /** Whether the caller sees a workflow (for lists). */
    public boolean seesWorkflow(Caller c, String name) {
        return c.allProjects() || store.workflowOwner(name).map(o -> c.sees(o.project())).orElse(false);
    }

    /**
     * The project something the caller creates goes to: the one it names (it must be one of the
     * caller's), else the caller's only project, else {@value Caller#DEFAULT_PROJECT} for callers that see
     * every project.
     */
    public String projectForNew(Caller c, String requested) throws AccessDenied {
        if (requested != null && !requested.isBlank()) {
            if (!c.sees(requested)) {
                throw new AccessDenied(403, c.name() + " is not a member of project '" + requested + "'");
            }
            return requested;
        }
        if (c.allProjects()) {
            return Caller.DEFAULT_PROJECT;
        }
        List<String> mine = c.projects().stream().sorted().toList();
        if (mine.size() == 1) {
            return mine.get(0);
        }
        throw new AccessDenied(mine.isEmpty() ? 403 : 400, mine.isEmpty() ? c.name() + " belongs to no project"
                : "name the project ('project'): one of " + mine);
    }

    /**
     * The project a run goes to: the one the request names ({@link #projectForNew}), else for a run of a
     * stored workflow that workflow's project (the caller sees it: {@link #requireWorkflowVisible} came
     * first), else {@link #projectForNew}'s default. A run of physics' workflow is physics' run: put into
     * {@value Caller#DEFAULT_PROJECT} by an admin, it was out of sight of the workflow's own members.
     *
     * @param workflow the stored workflow it runs (without {@code @VERSION}), or {@code null}
     */
    public String projectForRun(Caller c, String requested, String workflow) throws AccessDenied {
        if ((requested == null || requested.isBlank()) && workflow != null) {
            Optional<AccessStore.Ownership> owner = store.workflowOwner(workflow);
            if (owner.isPresent()) {
                return owner.get().project();
            }
        }
        return projectForNew(c, requested);
    }

    /** The project a stored workflow belongs to, if recorded. */
    public Optional<String> workflowProjectOf(String name) {
        return store.workflowOwner(name).map(AccessStore.Ownership::project);
    }

    /** Records the owner of a run just started. */
    public void ownRun(String runId, Caller c, String project) {
        store.ownRun(runId, new AccessStore.Ownership(project, c.name()));
    }

    /**
     * The project a workflow saved by the caller belongs to, checked before it is saved: a workflow
     * already owned keeps its project, and only that project's members (or admins) may save new versions
     * of it (409 to others: the name is taken; 409 too for a request naming another project, which would
     * otherwise be ignored); a new one goes to {@link #projectForNew}. Callers that do
     * not see every project must name the workflow ({@code name}), so this check comes before the save.
     *
     * @param name the name in the request, {@code null} when the document's own name is to be used
     */
    public String workflowProject(String name, Caller c, String requested) throws AccessDenied {
        if (name == null || name.isBlank()) {
            if (!c.allProjects()) {
                throw new AccessDenied(400, "name the workflow ('name') when saving it into a project");
            }
            return projectForNew(c, requested);
        }
        Optional<AccessStore.Ownership> existing = store.workflowOwner(name);
        if (existing.isPresent()) {
            String project = existing.get().project();
            if (!c.sees(project)) {
                throw new AccessDenied(409, "the workflow name '" + name + "' is taken; choose another");
            }
            if (requested != null && !requested.isBlank() && !requested.equals(project)) {
                // a version cannot move the workflow: its runs and earlier versions stay where they are
                throw new AccessDenied(409, "workflow '" + name + "' belongs to project '" + project + "': its new versions"
                        + " stay there (leave out 'project', or give '" + project + "')");
            }
            return project;
        }
        return projectForNew(c, requested);
    }

    /** Records the owner of a workflow just saved, unless it has one. */
    public void ownWorkflow(String name, Caller c, String project) {
        if (store.workflowOwner(name).isEmpty()) {
            store.ownWorkflow(name, new AccessStore.Ownership(project, c.name()));
        }
    }
}
