package org.mpfl.engine.access;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Who made a request, as the access layer established it before the request reached a route.
 *
 * @param name        shown in the audit trail and as the owner of what it creates: the user's name
 *                    (from the configured claim, as {@link #userName} shows it), {@code admin-token}, {@code host:ID}
 *                    or {@code anonymous}
 * @param kind        how it was authenticated
 * @param role        what it may do
 * @param projects    the projects it acts within (ignored when {@code allProjects})
 * @param allProjects whether it sees every project (the admin token, admins, anonymous readers of an open engine)
 * @param expiresAtMs when its credential expires (a user's token's {@code exp}), 0 for one that does not: what
 *                    stays open after the request was admitted (an event stream) ends then
 */
public record Caller(String name, Kind kind, Role role, Set<String> projects, boolean allProjects, long expiresAtMs) {
    /** How a caller was authenticated. */
    public enum Kind {
        /** The engine's admin token (bootstrap and local use). */
        ADMIN_TOKEN,
        /** A bearer JWT of the configured OpenID Connect issuer. */
        USER,
        /** A host credential (the registry's own routes decide what it may do). */
        HOST,
        /** No credential; only where reads are open. */
        ANONYMOUS
    }

    /** The project every run and workflow made without a user (admin token, older databases) belongs to. */
    public static final String DEFAULT_PROJECT = "default";

    public Caller {
        projects = Set.copyOf(projects);
    }

    /** A caller whose credential does not expire. */
    public Caller(String name, Kind kind, Role role, Set<String> projects, boolean allProjects) {
        this(name, kind, role, projects, allProjects, 0);
    }

    /** The admin token's caller. */
    public static Caller adminToken() {
        return new Caller("admin-token", Kind.ADMIN_TOKEN, Role.ADMIN, Set.of(), true);
    }

    /** An anonymous reader of an engine whose reads are open. */
    public static Caller anonymousReader() {
        return new Caller("anonymous", Kind.ANONYMOUS, Role.VIEWER, Set.of(), true);
    }

    /** No credential, and nothing to see (what a route gets that has no caller of its own). */
    public static Caller nobody() {
        return new Caller("nobody", Kind.ANONYMOUS, Role.VIEWER, Set.of(), false);
    }

    /** A host speaking with its credential. */
    public static Caller host(String hostId) {
        return new Caller("host:" + hostId, Kind.HOST, Role.VIEWER, Set.of(), false);
    }

    /**
     * A host or relay credential the engine does not know (revoked, or never issued): who a frequent request's refusal is
     * by on the audit trail ({@link Audit#recordRefusal}); the request names the host it claims to be.
     */
    public static Caller unknownCredential() {
        return new Caller("unknown-credential", Kind.ANONYMOUS, Role.VIEWER, Set.of(), false);
    }

    /**
     * How a user's name from a token is shown on the audit trail, as the owner of runs and workflows and in a run's
     * error. The claim is often the user's own choice (self-registration, an editable profile), so: control
     * characters and the bidirectional-text controls are written as a backslash, {@code u} and four hex digits (a name cannot write a
     * line into the trail or an escape sequence into a terminal showing {@code mpflc status}); and a name that
     * could be read as another kind of caller — {@code admin-token}, {@code anonymous}, {@code nobody}, {@code unknown-credential},
     * {@code engine} (the audit trail's own entries), {@code host:…}, or one already starting with {@code user:} — is shown as {@code user:NAME}, so that no user
     * appears as the admin token or a host.
     */
    public static String userName(String claimed) {
        StringBuilder b = new StringBuilder(claimed.length());
        claimed.codePoints().forEach(cp -> {
            if (Character.isISOControl(cp) || cp == 0x061C || cp == 0x200E || cp == 0x200F || cp >= 0x202A && cp <= 0x202E
                    || cp >= 0x2066 && cp <= 0x2069) {
                b.append('\\').append(String.format(java.util.Locale.ROOT, "u%04x", cp));
            } else {
                b.appendCodePoint(cp);
            }
        });
        String name = b.toString();
        boolean another = name.equals(adminToken().name()) || name.equals(anonymousReader().name()) || name.equals(nobody().name())
                || name.equals(unknownCredential().name()) || name.equals(Audit.ENGINE) || name.startsWith("host:") || name.startsWith("user:");
        return another ? "user:" + name : name;
    }

    /** Whether this caller may see what belongs to {@code project}. */
    public boolean sees(String project) {
        return allProjects || projects.contains(project);
    }

    /** As a Vert.x principal, the form in which it travels from the access filter to the Camel routes. */
    public JsonObject toPrincipal() {
        return new JsonObject().put("name", name).put("kind", kind.name()).put("role", role.name())
                .put("projects", new JsonArray(projects.stream().sorted().toList())).put("allProjects", allProjects)
                .put("expiresAtMs", expiresAtMs);
    }

    /** The caller a principal made by {@link #toPrincipal()} describes. */
    public static Caller fromPrincipal(JsonObject p) {
        Set<String> projects = new LinkedHashSet<>();
        p.getJsonArray("projects", new JsonArray()).forEach(v -> projects.add(String.valueOf(v)));
        return new Caller(p.getString("name"), Kind.valueOf(p.getString("kind")), Role.valueOf(p.getString("role")), projects,
                p.getBoolean("allProjects", false), p.getLong("expiresAtMs", 0L));
    }
}
