package org.mpfl.engine.rest;

import static org.mpfl.engine.rest.Requests.body;
import static org.mpfl.engine.rest.Requests.param;
import static org.mpfl.engine.rest.Requests.requireAdmin;
import static org.mpfl.engine.rest.Requests.text;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.camel.Exchange;
import org.mpfl.engine.access.Caller;
import org.mpfl.engine.access.Role;
import org.mpfl.engine.json.Json;
import org.mpfl.engine.registry.HostAnnouncement;
import org.mpfl.engine.registry.HostCredentials;
import org.mpfl.engine.registry.HostInfo;
import org.mpfl.engine.registry.HostRegistry;
import org.mpfl.engine.rest.EngineRoutes.Api;
import org.mpfl.engine.rest.EngineRoutes.Reply;
import org.mpfl.protocol.EngineRefusal;
import org.mpfl.protocol.HostCredential;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The closed registry: hosts announce, beat and leave with their host credential ({@link HostCredentials};
 * 401 without a valid one, before anything is read or allocated) and speak only for their own host id
 * (403 otherwise); relays announce themselves and check hosts' proofs with a relay's credential (409 with a host's,
 * as a host with a relay's: {@link HostCredentials.Kind}); the admin issues, lists and revokes credentials and may
 * remove any host.
 */
final class RegistryEndpoints {
    private static final Logger log = LoggerFactory.getLogger(RegistryEndpoints.class);
    private final Api api;

    RegistryEndpoints(Api api) {
        this.api = api;
    }

    Reply hosts(Exchange ex) {
        return Reply.ok(hostViews());
    }

    /**
     * One host's entry, for that host's own credential (or the admin token): how {@code mpflc slurm}, which holds its
     * nodes' credentials and no admin token, learns that each node's host enrolled. 404 while it is not registered.
     */
    Reply host(Exchange ex) throws ApiException {
        String hostId = param(ex, "hostId");
        if (!isAdmin(ex)) {
            requireHostSpeakingFor(ex, hostId);
        }
        // polled by mpflc slurm for each node: this host's view only, not every host's
        HostInfo h = api.registry().host(hostId)
                .orElseThrow(() -> new ApiException(404, "host '" + hostId + "' is not registered"));
        return Reply.ok(hostView(h, api.runs().busyRanks()));
    }

    /**
     * A host's goodbye (its own credential), or an admin removing it: it leaves the registry, and runs with ranks there
     * fail over at once as after a lost host ({@link org.mpfl.engine.registry.HostRegistry.Departure}), rather than
     * when a call to the stopped host fails.
     */
    Reply remove(Exchange ex) throws ApiException {
        String hostId = param(ex, "hostId");
        boolean admin = isAdmin(ex);
        if (!admin) {
            requireHostSpeakingFor(ex, hostId);
        }
        // an unknown host is a 404 as for GET: a 204 told an admin who mistyped the id that the host was removed
        if (api.registry().host(hostId).isEmpty()) {
            throw new ApiException(404, "host '" + hostId + "' is not registered");
        }
        if (admin) {
            api.registry().remove(hostId, HostRegistry.Departure.REMOVED);
        } else {
            // ?instance=ID: the process saying goodbye, whose leaving takes no other process's entry with it
            api.registry().leave(hostId, param(ex, "instance"));
        }
        return new Reply(204, null);
    }

    Reply credentials(Exchange ex) throws ApiException {
        requireAdmin(ex);
        return Reply.ok(api.credentials().list().stream().map(e -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", e.id());
            m.put("hostId", e.hostId());
            m.put("createdMs", e.createdMs());
            m.put("kind", e.kind().wire());
            return m;
        }).toList());
    }

    Reply revoke(Exchange ex) throws ApiException {
        requireAdmin(ex);
        HostCredentials.Entry gone = api.credentials().revoke(param(ex, "id"))
                .orElseThrow(() -> new ApiException(404, "no host credential '" + param(ex, "id") + "'"));
        // the host leaves now, its runs fail over as from a lost host; its later requests get 401
        api.registry().remove(gone.hostId(), HostRegistry.Departure.REMOVED);
        log.info("host credential {} of host {} revoked", gone.id(), gone.hostId());
        return new Reply(204, null);
    }

    Reply relays(Exchange ex) {
        return Reply.ok(api.registry().relays().list());
    }

    Reply announceRelay(Exchange ex) throws ApiException {
        String own = requireRelay(ex);
        if (api.registry().host(own).isPresent()) {
            throw new ApiException(EngineRefusal.CREDENTIAL_KIND, "'" + own + "' is registered as a service host: a relay needs a credential of its own");
        }
        try {
            return new Reply(201, api.registry().relays().announce(own, body(ex).path("address").asText(null)));
        } catch (org.mpfl.engine.registry.Relays.AddressTaken e) {
            log.warn("relay {} announced at another address, refused: {}", own, e.getMessage());
            throw new ApiException(409, e.getMessage());
        } catch (IllegalArgumentException e) {
            throw new ApiException(400, e.getMessage());
        }
    }

    /**
     * {@code {"op", "hostId", "nonce", "proof"}} from a relay: {@code {"valid", "addresses", "credential"}}, whether the proof is
     * that host's (a host's credential only), the addresses the registry knows for it (the only ones the relay lets it
     * register) and the id of the credential it proved (what the relay asks about again, {@link #checkAtRelay}). For
     * {@code "op": "register"} (the default) the host must also have announced this relay, else
     * {@code {"valid": false, "error"}} says so ({@link org.mpfl.engine.registry.Relays#registrationRefused}).
     */
    Reply verifyAtRelay(Exchange ex) throws ApiException {
        String relay = requireAnnouncedRelay(ex, "checks hosts' proofs");
        JsonNode b = body(ex);
        String hostId = b.path("hostId").asText("");
        // a request that names no op is a registration: the proof says which request it is for
        String op = b.path("op").asText("register");
        java.util.Optional<String> credential = api.registry().relays().verify(api.credentials(), relay, hostId, op,
                b.path("nonce").asText(""), b.path("proof").asText(""));
        // a registration only at the relay the host announced; a dial at any
        java.util.Optional<String> refused = credential.isEmpty() || !"register".equals(op)
                ? java.util.Optional.empty() : api.registry().relays().registrationRefused(relay, hostId);
        if (refused.isPresent()) {
            log.warn("relay {} asked to register host {}, refused: {}", relay, hostId, refused.get());
            return Reply.ok(Map.of("valid", false, "addresses", List.of(), "error", refused.get()));
        }
        if (credential.isPresent() && "register".equals(op)) {
            // the relay registers the host on this answer: placeable again if the relay is back from a loss
            api.registry().relays().registered(relay, hostId);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("valid", credential.isPresent());
        // nothing about a host for a proof that is not its own
        m.put("addresses", credential.isPresent()
                ? api.registry().host(hostId).map(org.mpfl.engine.registry.Relays::addressesOf).orElse(List.of()) : List.of());
        credential.ifPresent(id -> m.put("credential", id));
        return Reply.ok(m);
    }

    /**
     * {@code {"hosts": {hostId: credentialId, ...}}} from a relay, the hosts registered there with the credential each
     * proved ({@link #verifyAtRelay}): {@code {"valid": [hostId, ...]}}, those whose credential is still theirs. The
     * relay asks every 2 s and drops the others (a revoked host); a relay that gets no answer drops nobody. At most {@link #MAX_CHECKED} hosts
     * (a relay holds at most 1024 connections).
     */
    Reply checkAtRelay(Exchange ex) throws ApiException {
        String relay = requireAnnouncedRelay(ex, "asks about hosts' credentials");
        JsonNode hosts = body(ex).path("hosts");
        if (!hosts.isObject() || hosts.size() > MAX_CHECKED) {
            throw new ApiException(400, "a relay's check names its hosts as {\"hosts\": {hostId: credentialId}}, at most "
                    + MAX_CHECKED);
        }
        Map<String, String> asked = new LinkedHashMap<>();
        hosts.fields().forEachRemaining(e -> asked.put(e.getKey(), e.getValue().asText("")));
        List<String> valid = org.mpfl.engine.registry.Relays.stillValid(api.credentials(), asked);
        // the hosts it holds registered: any a relay back from a loss had not reported yet are placeable again
        valid.forEach(hostId -> api.registry().relays().registered(relay, hostId));
        return Reply.ok(Map.of("valid", valid));
    }

    /** Hosts one check of a relay may name. */
    static final int MAX_CHECKED = 4096;

    /** The relay a request's credential speaks for, if it announced itself (403 otherwise: it {@code does} nothing). */
    private String requireAnnouncedRelay(Exchange ex, String does) throws ApiException {
        String relay = requireRelay(ex);
        if (!api.registry().relays().isRelay(relay)) {
            throw new ApiException(403, "only a relay (announced with POST /api/registry/relays) " + does);
        }
        return relay;
    }

    /**
     * {@code {"hostId"?, "kind"?}} with the admin token: a new credential, a host's or ({@code "kind": "relay"}) a relay's
     * (201; the only time its secret is shown).
     */
    Reply issueCredential(Exchange ex) throws Exception {
        requireAdmin(ex);
        String text = Requests.bodyText(ex);
        String hostId = null;
        HostCredentials.Kind kind = HostCredentials.Kind.HOST;
        if (text != null && !text.isBlank()) {
            try {
                JsonNode b = Json.MAPPER.readTree(text);
                hostId = text(b, "hostId");
                kind = HostCredentials.Kind.of(text(b, "kind"));
            } catch (IOException e) {
                throw new ApiException(400, Requests.notJson(e));
            } catch (IllegalArgumentException e) {
                throw new ApiException(400, e.getMessage());
            }
        }
        if (kind == HostCredentials.Kind.RELAY && hostId == null) {
            throw new ApiException(400, "a relay's credential needs its id: {\"hostId\": NAME, \"kind\": \"relay\"}");
        }
        HostCredential c;
        try {
            c = api.credentials().issue(hostId, api.url().get(), kind);
        } catch (HostCredentials.HostIdTakenException e) {
            throw new ApiException(409, e.getMessage());
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", c.id());
        m.put("hostId", c.hostId());
        m.put("kind", kind.wire());
        m.put("engine", c.engineUrl());
        m.put("secret", c.secret());
        m.put("credential", c.text());
        return new Reply(201, m);
    }

    /**
     * The registry's hosts as JSON, each with {@code quarantine}: {@code null}, or why and until when
     * the engine places no ranks there ({@code active} false once it ended; the offences stay on
     * record until the host accepts work again).
     */
    private List<Map<String, Object>> hostViews() {
        List<Map<String, Object>> out = new ArrayList<>();
        Map<String, Integer> busy = api.runs().busyRanks();
        for (HostInfo h : api.registry().hosts()) {
            out.add(hostView(h, busy));
        }
        return out;
    }

    /** One host as the registry routes show it: its entry, the ranks of live runs on it, its relay and quarantine. */
    private Map<String, Object> hostView(HostInfo h, Map<String, Integer> busy) {
        Map<String, Object> m = Json.MAPPER.convertValue(h, new TypeReference<LinkedHashMap<String, Object>>() { });
        m.put("ranksInUse", busy.getOrDefault(h.hostId(), 0));
        m.put("relay", api.registry().relays().relayOf(h.hostId()).orElse(null));
        // healthy but out of reach through its relay: placement leaves it out without a quarantine
        m.put("unreachable", api.registry().relays().unreachable(h.hostId()).orElse(null));
        m.put("quarantine", api.registry().quarantine(h.hostId()).map(q -> {
            Map<String, Object> v = new LinkedHashMap<>();
            v.put("active", api.registry().quarantined(h.hostId()));
            v.put("reason", q.reason());
            v.put("sinceMs", q.sinceMs());
            v.put("untilMs", q.untilMs());
            v.put("offences", q.offences());
            return v;
        }).orElse(null));
        return m;
    }

    Reply announce(Exchange ex) throws Exception {
        String own = requireHost(ex);
        HostAnnouncement a;
        JsonNode raw = body(ex);
        requireAnnouncedBounds(raw);
        try {
            a = Json.MAPPER.treeToValue(raw, HostAnnouncement.class);
        } catch (IOException e) {
            throw new ApiException(400, Requests.notA("not a host announcement", e));
        }
        if (a.hostId() != null && !a.hostId().isBlank() && !a.hostId().equals(own)) {
            throw new ApiException(EngineRefusal.CREDENTIAL_FOREIGN, "this credential speaks for host '" + own + "', not '" + a.hostId() + "'");
        }
        a = new HostAnnouncement(own, a.soapUrl(), a.binaryAddress(), a.services(), a.capacity(), a.deployUrl(),
                a.oversubscribe(), a.instance(), a.site());
        Map<String, Object> m = new LinkedHashMap<>();
        if (api.registry().relays().isRelay(own)) {
            throw new ApiException(EngineRefusal.CREDENTIAL_KIND, "'" + own + "' is registered as a relay: a host needs a credential of its own");
        }
        String relay = raw.path("relay").asText(null);
        java.util.Optional<String> taken = a.soapUrl() == null || a.soapUrl().isBlank() ? java.util.Optional.empty()
                : api.registry().relays().addressTaken(new HostInfo(own, a.soapUrl(), a.binaryAddress(), java.util.Set.of(), 1, 0,
                        false, a.deployUrl(), false, null, a.site()), relay, api.registry().hosts());
        if (taken.isPresent()) {
            throw new ApiException(409, taken.get());
        }
        HostInfo registered;
        try {
            registered = api.registry().announceUnlessLive(a);
        } catch (HostRegistry.InstanceContest e) {
            throw contested(own, a.soapUrl(), e);
        }
        // a host that holds a connection to a relay accepts none from outside its site: the engine calls it there
        api.registry().relays().hostUses(registered, relay);
        m.put("host", registered);
        m.put("heartbeatIntervalMs", api.registry().heartbeatInterval().toMillis());
        // the host gives up its ranks when it has not reached the engine for this long (the engine gave up on it)
        m.put("heartbeatTimeoutMs", api.registry().heartbeatTimeout().toMillis());
        // ... unless the engine itself is what went away: then the ranks run on this long, so that a
        // restarted engine re-attaches to them (docs/durability.md)
        m.put("engineLossGraceMs", api.registry().engineLossGrace().toMillis());
        // a host behind a relay aborts its ranks once its link to the relay has been down this long: by then the engine
        // has failed or restarted their runs and given up reaching them (docs/deployment.md, "Faults" across sites)
        m.put("relayReturnMs", api.registry().relays().relayReturn().toMillis());
        return new Reply(201, m);
    }

    /**
     * Refuses what the announcement's fields cannot be (400 naming the field and the bound): a capacity below 1 was
     * registered as 1, though the API gives 1 as its minimum, and one beyond an int was said as Java's int range; a
     * {@code soapUrl} or {@code deployUrl} that is no URL was answered with the URI parser's words ("Illegal character
     * in scheme name at index 2: …"), or passed to fail at the first call.
     */
    private static void requireAnnouncedBounds(JsonNode raw) throws ApiException {
        for (String f : java.util.List.of("capacity", "slots", "cpus")) {
            JsonNode n = raw.get(f);
            if (n != null && !n.isNull() && !(n.isIntegralNumber() && n.canConvertToInt() && n.asInt() >= 1)) {
                throw new ApiException(400, "not a host announcement: '" + f + "' must be a whole number from 1 to "
                        + Integer.MAX_VALUE + ", not " + n);
            }
        }
        for (String f : java.util.List.of("soapUrl", "deployUrl")) {
            JsonNode n = raw.get(f);
            String why = n == null || !n.isTextual() || n.asText().isBlank() ? null : notHttpUrl(n.asText().strip());
            if (why != null) {
                throw new ApiException(400, "not a host announcement: '" + f + "' must be an http or https URL such as"
                        + " http://HOST:PORT/services; " + why);
            }
        }
    }

    /** Why {@code url} is no absolute http(s) URL naming a host, or {@code null} when it is one. */
    private static String notHttpUrl(String url) {
        java.net.URI u;
        try {
            u = new java.net.URI(url);
        } catch (java.net.URISyntaxException e) {
            return "it does not parse (" + e.getReason().toLowerCase(java.util.Locale.ROOT)
                    + (e.getIndex() < 0 ? "" : " at character " + (e.getIndex() + 1)) + ")";
        }
        if (u.getScheme() == null || !u.getScheme().equalsIgnoreCase("http") && !u.getScheme().equalsIgnoreCase("https")) {
            return "its scheme is " + (u.getScheme() == null ? "missing" : "'" + u.getScheme() + "'");
        }
        return u.getHost() == null ? "it names no host" : null;
    }

    /**
     * An announcement of a second process of a registered host: pending (503, marked: ask again) while the engine cannot
     * tell a restart from a second live process, else refused for good (409, marked: the host stops); the refusal is on
     * the audit trail as every answered announcement is, and in the engine's log with where both processes are.
     */
    private static ApiException contested(String hostId, String newcomer, HostRegistry.InstanceContest e) {
        if (e.pending()) {
            return new ApiException(EngineRefusal.INSTANCE_PENDING, e.getMessage());
        }
        log.warn("refused a second process of host {} (at {}): the one registered at {} still heartbeats", hostId,
                newcomer, e.registered().soapUrl());
        return new ApiException(EngineRefusal.INSTANCE_LIVE, e.getMessage());
    }

    /**
     * A host's heartbeat, {@code {"instance"}} optional (hosts before 0.1 send {@code {}}): 404 when the host is not
     * registered, or when its entry is another process's now (it announces again, and is refused while that one lives).
     */
    Reply heartbeat(Exchange ex) throws ApiException {
        String id = param(ex, "hostId");
        requireHostSpeakingFor(ex, id);
        String instance = heartbeatInstance(ex);
        if (!api.registry().heartbeat(id, instance)) {
            throw new ApiException(404, api.registry().host(id).isPresent()
                    ? "host '" + id + "' is registered by another process now: announce again"
                    : "unknown host '" + id + "': announce again");
        }
        return new Reply(204, null);
    }

    /** The instance a heartbeat names; {@code null} when it names none or its body is not JSON (beat as before). */
    private static String heartbeatInstance(Exchange ex) {
        try {
            JsonNode b = Requests.optionalBody(ex);
            return b == null ? null : b.path("instance").asText(null);
        } catch (ApiException e) {
            return null;
        }
    }

    /** The admin token, or a user with the admin role (an admin removes any host, as revoking its credential would). */
    private static boolean isAdmin(Exchange ex) {
        Caller c = AccessFilter.caller(ex);
        return c.kind() != Caller.Kind.HOST && c.kind() != Caller.Kind.ANONYMOUS && c.role() == Role.ADMIN;
    }

    /** The host id a request's host credential speaks for; 401 without a valid credential, 409 with a relay's. */
    private String requireHost(Exchange ex) throws ApiException {
        return require(ex, HostCredentials.Kind.HOST, "a relay's credential: a host needs a host credential of its own"
                + " (mpflc host-token, without --relay)");
    }

    /** The relay id a request's relay credential speaks for; 401 without a valid credential, 409 with a host's. */
    private String requireRelay(Exchange ex) throws ApiException {
        return require(ex, HostCredentials.Kind.RELAY, "a host's credential: a relay needs a relay credential"
                + " (mpflc host-token --relay --host-id NAME)");
    }

    /** The id a request's credential of {@code kind} speaks for; 409 saying {@code otherwise} with a credential of another kind. */
    private String require(Exchange ex, HostCredentials.Kind kind, String otherwise) throws ApiException {
        HostCredentials.Entry e = credential(ex);
        if (e.kind() != kind) {
            throw new ApiException(EngineRefusal.CREDENTIAL_KIND, "'" + e.hostId() + "' holds " + otherwise);
        }
        return e.hostId();
    }

    /** The valid credential a request carries; 401 without one. */
    private HostCredentials.Entry credential(Exchange ex) throws ApiException {
        String auth = ex.getIn().getHeader("Authorization", String.class);
        return api.credentials().credentialOf(auth).orElseThrow(() -> new ApiException(EngineRefusal.CREDENTIAL_REFUSED, auth == null
                ? "the registry is closed: this request needs 'Authorization: Bearer <host credential>' (mpflc host-token)"
                : "not a valid host credential (unknown, revoked or wrong secret)"));
    }

    /** 401 without a valid host credential, 403 (marked) when it belongs to another host than {@code hostId}. */
    private void requireHostSpeakingFor(Exchange ex, String hostId) throws ApiException {
        String own = requireHost(ex);
        if (!own.equals(hostId)) {
            throw new ApiException(EngineRefusal.CREDENTIAL_FOREIGN, "this credential speaks for host '" + own + "', not '" + hostId + "'");
        }
    }
}
